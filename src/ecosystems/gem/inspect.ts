import { baseOf, type SourceContext } from '../registration.js';
import { registryDocument, registryJson, type SourceHttp } from '../shared/archive.js';
import { type InspectedPackage, type InspectedRelease, isoDate, type PackageInspector, registryFacts, withdrawn } from '../shared/inspect.js';
import { record, text } from '../shared/narrow.js';
import { rubygemsMetadata, versionUrl } from './registry.js';

/**
 * RubyGems inspection: `/api/v1/versions/<name>.json` (every published build, newest first, with
 * `created_at`; yanked versions are no longer listed) and the version document of the API v2
 * (`/api/v2/rubygems/<name>/versions/<version>.json`: licenses, `dependencies.runtime` and
 * `.development` with their requirements, `yanked`). Several platform builds of a version are one
 * version here.
 */

class RubygemsInspector implements PackageInspector {
  constructor(
    private readonly base: string,
    private readonly http: SourceHttp,
  ) {}

  async package(name: string): Promise<InspectedPackage | null> {
    const raw = await registryDocument(this.http, `${this.base}/api/v1/versions/${encodeURIComponent(name)}.json`, Array.isArray);
    if (raw === null) return null;
    const seen = new Map<string, { version: string; publishedAt: string | null; prerelease: boolean }>();
    for (const entry of raw as unknown[]) {
      const v = record(entry);
      const number = text(v?.['number']);
      if (v === null || number === null || seen.has(number)) continue;
      seen.set(number, { version: number, publishedAt: isoDate(v['created_at']), prerelease: v['prerelease'] === true });
    }
    const listed = [...seen.values()].reverse();
    const latest = [...listed].reverse().find((v) => !v.prerelease)?.version ?? listed.at(-1)?.version ?? null;
    return { name, versions: listed.map((v) => ({ version: v.version, publishedAt: v.publishedAt, yanked: false, deprecated: false })), latest };
  }

  async release(name: string, version: string, known: InspectedPackage): Promise<InspectedRelease | null> {
    const doc = await registryJson<Record<string, unknown>>(this.http, versionUrl(this.base, name, version), () => true);
    if (doc === null) return null;
    const facts = rubygemsMetadata(doc);
    const deps = record(doc['dependencies']) ?? {};
    const kind = (key: string) =>
      (Array.isArray(deps[key]) ? (deps[key] as unknown[]) : []).map(record).flatMap((d) =>
        d === null || text(d['name']) === null ? [] : [{ name: String(d['name']), requirement: text(d['requirements']), kind: key, optional: false }],
      );
    return {
      version,
      publishedAt: isoDate(doc['version_created_at'] ?? doc['created_at']) ?? known.versions.find((v) => v.version === version)?.publishedAt ?? null,
      ...registryFacts(facts),
      deprecated: null,
      yanked: withdrawn(doc['yanked'] === true, 'yanked', null),
      retracted: null,
      installScripts: null,
      dependencies: [...kind('runtime'), ...kind('development')],
      exports: null,
    };
  }
}

export function inspector(context: SourceContext): PackageInspector {
  return new RubygemsInspector(baseOf(context.registries, 'rubygems').replace(/\/+$/, ''), context.http);
}
