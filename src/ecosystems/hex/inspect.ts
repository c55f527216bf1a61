import { baseOf, type SourceContext } from '../registration.js';
import { registryJson, type SourceHttp } from '../shared/archive.js';
import { type InspectedPackage, type InspectedRelease, isoDate, type PackageInspector, registryFacts } from '../shared/inspect.js';
import { record, text } from '../shared/narrow.js';
import { hexMetadata, packageUrl } from './registry.js';

/**
 * Hex inspection through the Hex API: the package document (`/api/packages/<name>`: `releases`
 * with `inserted_at`, `retirements` by version, `meta`, `latest_stable_version`) and the release
 * document (`/api/packages/<name>/releases/<version>`: `requirements`, a map of dependency names
 * to `{requirement, optional, app}`). A retired release is Hex's yank, with its reason and message.
 */

type Doc = Record<string, unknown>;

class HexInspector implements PackageInspector {
  private readonly documents = new Map<string, Doc>();

  constructor(
    private readonly base: string,
    private readonly http: SourceHttp,
  ) {}

  private doc(name: string): Promise<Doc | null> {
    return registryJson<Doc>(this.http, packageUrl(this.base, name), (d) => Array.isArray(d['releases']));
  }

  async package(name: string): Promise<InspectedPackage | null> {
    const doc = await this.doc(name);
    if (doc === null) return null;
    this.documents.set(name, doc);
    if (this.documents.size > 50) this.documents.delete(this.documents.keys().next().value ?? '');
    const retired = record(doc['retirements']) ?? {};
    const versions = (doc['releases'] as unknown[])
      .map(record)
      .flatMap((r) => (r === null || text(r['version']) === null ? [] : [{ version: String(r['version']), publishedAt: isoDate(r['inserted_at']), yanked: String(r['version']) in retired, deprecated: false }]))
      .reverse();
    return { name: text(doc['name']) ?? name, versions, latest: text(doc['latest_stable_version']) ?? text(doc['latest_version']) ?? versions.at(-1)?.version ?? null };
  }

  async release(name: string, version: string): Promise<InspectedRelease | null> {
    const doc = this.documents.get(name) ?? (await this.doc(name));
    if (doc === null) return null;
    const listed = (doc['releases'] as unknown[]).map(record).find((r) => r?.['version'] === version);
    if (listed === undefined || listed === null) return null;
    const release = await registryJson<Doc>(this.http, `${packageUrl(this.base, name)}/releases/${encodeURIComponent(version)}`, () => true);
    const facts = hexMetadata(doc, version);
    const retirement = record(record(doc['retirements'])?.[version]) ?? record(release?.['retirement']);
    const requirements = record(release?.['requirements']) ?? {};
    return {
      version,
      publishedAt: isoDate(release?.['inserted_at'] ?? listed['inserted_at']),
      ...registryFacts(facts),
      deprecated: null,
      yanked: retirement === null ? null : { as: 'retired', reason: [text(retirement['reason']), text(retirement['message'])].filter((t) => t !== null).join(': ') || null },
      retracted: null,
      installScripts: null,
      dependencies: Object.entries(requirements).map(([dep, req]) => ({ name: dep, requirement: text(record(req)?.['requirement']), kind: 'requirements', optional: record(req)?.['optional'] === true })),
      exports: null,
    };
  }
}

export function inspector(context: SourceContext): PackageInspector {
  return new HexInspector(baseOf(context.registries, 'hex').replace(/\/+$/, ''), context.http);
}
