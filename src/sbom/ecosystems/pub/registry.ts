import type { MetadataClient } from '../../enrich-types.js';
import { EMPTY_METADATA, supplierOf, type PackageMetadata, type Supplier } from '../../metadata.js';
import type { RegistryEndpoint } from '../types.js';

/**
 * Metadata from the pub API (`PACKAGE_REGISTRIES.pub`, https://pub.dev): the version's pubspec
 * (`GET /api/packages/<name>/versions/<version>`: description, homepage, repository) and its
 * license from the package score's tags (`GET /api/packages/<name>/score`: `license:<spdx id>`,
 * lower-cased; pub.dev's own analysis of the LICENSE file). No tag: unknown, never guessed.
 */

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/**
 * The verified publisher (the score's `publisher:<domain>` tag: pub.dev verified the domain),
 * else the pubspec's (deprecated) `author` or first of `authors`.
 */
function supplierIn(tags: readonly string[], pubspec: Record<string, unknown>): Supplier | null {
  const publisher = tags.find((t) => t.startsWith('publisher:'))?.slice('publisher:'.length);
  if (publisher !== undefined && publisher !== '') return supplierOf('organization', publisher);
  const authors = pubspec['authors'];
  return supplierOf('person', text(pubspec['author']) ?? (Array.isArray(authors) ? text(authors[0]) : null));
}

/** The facts of a version document of the pub API, its license from the score document's tags. */
export function pubMetadata(doc: Record<string, unknown>, score: Record<string, unknown> | null): PackageMetadata {
  const pubspec = record(doc['pubspec']) ?? {};
  const tags = Array.isArray(score?.['tags']) ? (score['tags'] as unknown[]).filter((t): t is string => typeof t === 'string') : [];
  const licenses = tags.filter((t) => t.startsWith('license:') && !['license:fsf-libre', 'license:osi-approved', 'license:unknown'].includes(t)).map((t) => t.slice('license:'.length));
  return {
    ...EMPTY_METADATA,
    license: licenses.length === 0 ? null : licenses.length === 1 ? (licenses[0] ?? null) : `(${licenses.join(' AND ')})`,
    description: text(pubspec['description']),
    homepage: text(pubspec['homepage']),
    repository: text(pubspec['repository']),
    deprecated: doc['retracted'] === true ? 'retracted' : null,
    supplier: supplierIn(tags, pubspec),
  };
}

export function pubMetadataClient(registry: RegistryEndpoint): MetadataClient {
  const base = registry.base.replace(/\/+$/, '');
  return {
    async fetch(name, version, signal): Promise<PackageMetadata | null> {
      const pkg = `${base}/api/packages/${encodeURIComponent(name)}`;
      const doc = record(await registry.http.json(`${pkg}/versions/${encodeURIComponent(version)}`, { signal }));
      if (doc === null) return null;
      const score = record(await registry.http.json(`${pkg}/score`, { signal }));
      return pubMetadata(doc, score);
    },
  };
}
