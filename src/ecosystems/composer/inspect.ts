import { baseOf, type SourceContext } from '../registration.js';
import { registryJson, type SourceHttp } from '../shared/archive.js';
import { dependencyMap, type InspectedPackage, type InspectedRelease, isoDate, type PackageInspector, registryFacts, withdrawn } from '../shared/inspect.js';
import { record, text } from '../shared/narrow.js';
import { composerMetadata, expandMinified, packageUrl } from './registry.js';

/**
 * Packagist inspection from the Composer v2 metadata file (`/p2/<vendor>/<name>.json`, minified):
 * the tagged versions, newest first, each with `time`, `license`, `require` and `require-dev`;
 * `abandoned` (true, or the package to use instead) is the package's deprecation. Composer runs
 * no script of a dependency, so there are no install scripts.
 */

type Version = Record<string, unknown>;

class PackagistInspector implements PackageInspector {
  private readonly documents = new Map<string, Version[]>();

  constructor(
    private readonly base: string,
    private readonly http: SourceHttp,
  ) {}

  private async versions(name: string): Promise<Version[] | null> {
    const lower = name.toLowerCase();
    const doc = await registryJson<{ packages?: unknown; minified?: unknown }>(this.http, packageUrl(this.base, lower), (d) => record(d.packages) !== null);
    const list = record(doc?.packages)?.[lower];
    if (doc === null || !Array.isArray(list)) return null;
    return doc.minified === 'composer/2.0' ? expandMinified(list) : list.map(record).filter((v): v is Version => v !== null);
  }

  async package(name: string): Promise<InspectedPackage | null> {
    const versions = await this.versions(name);
    if (versions === null) return null;
    this.documents.set(name.toLowerCase(), versions);
    if (this.documents.size > 50) this.documents.delete(this.documents.keys().next().value ?? '');
    const listed = versions.flatMap((v) => (text(v['version']) === null ? [] : [{ version: String(v['version']), publishedAt: isoDate(v['time']), yanked: false, deprecated: false }])).reverse();
    // Packagist lists newest first; the newest without a stability suffix is the latest.
    const stable = [...listed].reverse().find((v) => /^v?\d+(\.\d+)*$/.test(v.version));
    return { name: text(versions[0]?.['name']) ?? name, versions: listed, latest: stable?.version ?? listed.at(-1)?.version ?? null };
  }

  async release(name: string, version: string): Promise<InspectedRelease | null> {
    const versions = this.documents.get(name.toLowerCase()) ?? (await this.versions(name)) ?? [];
    const found = versions.find((v) => v['version'] === version);
    if (found === undefined) return null;
    const facts = composerMetadata(found);
    return {
      version,
      publishedAt: isoDate(found['time']),
      ...registryFacts(facts),
      deprecated: withdrawn(facts.deprecated !== null, 'abandoned', text(found['abandoned'])),
      yanked: null,
      retracted: null,
      installScripts: null,
      dependencies: [...dependencyMap(found['require'], 'require'), ...dependencyMap(found['require-dev'], 'require-dev'), ...dependencyMap(found['suggest'], 'suggest', () => true)],
      exports: null,
    };
  }
}

export function inspector(context: SourceContext): PackageInspector {
  return new PackagistInspector(baseOf(context.registries, 'packagist').replace(/\/+$/, ''), context.http);
}
