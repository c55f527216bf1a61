import { baseOf, type SourceContext } from '../registration.js';
import { registryJson, type SourceHttp } from '../shared/archive.js';
import { type InspectedPackage, type InspectedRelease, isoDate, type PackageInspector, registryFacts, withdrawn } from '../shared/inspect.js';
import { record, text } from '../shared/narrow.js';
import { crateMetadata, crateUrl } from './registry.js';

/**
 * crates.io inspection: the crate document (`/api/v1/crates/<name>`: every version with its
 * `created_at`, `yanked`, `yank_message`, `license`) and a version's dependencies
 * (`/api/v1/crates/<name>/<version>/dependencies`: `req`, `kind` normal/dev/build, `optional`).
 */

interface CrateDoc {
  readonly crate?: unknown;
  readonly versions?: unknown;
}

class CratesInspector implements PackageInspector {
  private readonly base: string;
  /** The crate documents `package` read last, for `release` (the inspection caches both answers). */
  private readonly documents = new Map<string, CrateDoc>();

  constructor(
    base: string,
    private readonly http: SourceHttp,
  ) {
    this.base = base.replace(/\/+$/, '');
  }

  private versionsOf(doc: CrateDoc): Record<string, unknown>[] {
    return (doc.versions as unknown[]).map(record).filter((v): v is Record<string, unknown> => v !== null && typeof v['num'] === 'string');
  }

  async package(name: string): Promise<InspectedPackage | null> {
    const doc = await registryJson<CrateDoc>(this.http, crateUrl(this.base, name), (d) => Array.isArray(d.versions));
    if (doc === null) return null;
    this.documents.set(name, doc);
    if (this.documents.size > 50) this.documents.delete(this.documents.keys().next().value ?? '');
    const crate = record(doc.crate) ?? {};
    // crates.io lists versions newest first.
    const versions = this.versionsOf(doc)
      .map((v) => ({ version: String(v['num']), publishedAt: isoDate(v['created_at']), yanked: v['yanked'] === true, deprecated: false }))
      .reverse();
    return { name: text(crate['name']) ?? name, versions, latest: text(crate['max_stable_version']) ?? text(crate['max_version']) };
  }

  async release(name: string, version: string): Promise<InspectedRelease | null> {
    const doc = this.documents.get(name) ?? (await registryJson<CrateDoc>(this.http, crateUrl(this.base, name), (d) => Array.isArray(d.versions)));
    if (doc === null) return null;
    const found = this.versionsOf(doc).find((v) => v['num'] === version);
    if (found === undefined) return null;
    const crate = record(doc.crate) ?? {};
    // Newer registries put the descriptive fields on the version; older ones on the crate only.
    const facts = crateMetadata(found, ['description', 'homepage', 'repository'].some((k) => k in found) ? found : crate);
    const deps = await registryJson<{ dependencies?: unknown }>(this.http, `${crateUrl(this.base, name)}/${encodeURIComponent(version)}/dependencies`, (d) => Array.isArray(d.dependencies));
    const dependencies = ((deps?.dependencies as unknown[] | undefined) ?? []).map(record).flatMap((d) =>
      d === null || text(d['crate_id']) === null
        ? []
        : [{ name: String(d['crate_id']), requirement: text(d['req']), kind: text(d['kind']) ?? 'normal', optional: d['optional'] === true }],
    );
    return {
      version,
      publishedAt: isoDate(found['created_at']),
      ...registryFacts(facts),
      deprecated: null,
      yanked: withdrawn(found['yanked'] === true, 'yanked', text(found['yank_message'])),
      retracted: null,
      installScripts: null,
      dependencies,
      exports: null,
    };
  }
}

export function inspector(context: SourceContext): PackageInspector {
  return new CratesInspector(baseOf(context.registries, 'crates'), context.http);
}
