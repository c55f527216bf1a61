import type { SourceContext } from '../registration.js';
import { baseOf } from '../registration.js';
import { sourceJson } from '../shared/archive.js';
import { dependencyMap, type InspectedPackage, type InspectedRelease, isoDate, type PackageInspector, registryFacts, withdrawn } from '../shared/inspect.js';
import { record, text } from '../shared/narrow.js';
import { pubMetadata, PubRegistry } from './registry.js';

/**
 * pub inspection through the pub API client: the package document (`/api/packages/<name>`: every
 * version with `published`, `retracted` and its `pubspec`; `isDiscontinued` and `replacedBy` for
 * the package) and the score document, whose tags name the license.
 */

type Doc = Record<string, unknown>;

class PubInspector implements PackageInspector {
  private readonly documents = new Map<string, Doc>();

  constructor(private readonly registry: PubRegistry) {}

  private doc(name: string): Promise<Doc | null> {
    return sourceJson<Doc>(() => this.registry.package(name), (d) => Array.isArray(d['versions']));
  }

  async package(name: string): Promise<InspectedPackage | null> {
    const doc = await this.doc(name);
    if (doc === null) return null;
    this.documents.set(name, doc);
    if (this.documents.size > 50) this.documents.delete(this.documents.keys().next().value ?? '');
    const versions = (doc['versions'] as unknown[]).map(record).flatMap((v) =>
      v === null || text(v['version']) === null ? [] : [{ version: String(v['version']), publishedAt: isoDate(v['published']), yanked: v['retracted'] === true, deprecated: false }],
    );
    return { name: text(doc['name']) ?? name, versions, latest: text(record(doc['latest'])?.['version']) };
  }

  async release(name: string, version: string): Promise<InspectedRelease | null> {
    const doc = this.documents.get(name) ?? (await this.doc(name));
    if (doc === null) return null;
    const found = (doc['versions'] as unknown[]).map(record).find((v) => v?.['version'] === version);
    if (found === undefined || found === null) return null;
    // The score names the license; a registry without it (or a failure there) leaves it unknown.
    const score = await sourceJson<Doc>(() => this.registry.score(name), () => true).catch(() => null);
    const facts = pubMetadata(found, score);
    const pubspec = record(found['pubspec']) ?? {};
    const discontinued = doc['isDiscontinued'] === true;
    const replacedBy = text(doc['replacedBy']);
    return {
      version,
      publishedAt: isoDate(found['published']),
      ...registryFacts(facts),
      deprecated: withdrawn(discontinued, 'discontinued', replacedBy === null ? null : `replaced by ${replacedBy}`),
      yanked: null,
      retracted: withdrawn(found['retracted'] === true, 'retracted', null),
      installScripts: null,
      dependencies: [...dependencyMap(pubspec['dependencies'], 'dependencies'), ...dependencyMap(pubspec['dev_dependencies'], 'dev_dependencies')],
      exports: null,
    };
  }
}

export function inspector(context: SourceContext): PackageInspector {
  return new PubInspector(new PubRegistry(baseOf(context.registries, 'pub'), context.http));
}
