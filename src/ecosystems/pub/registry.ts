import type { MetadataClient } from '../../model/enrich-types.js';
import { EMPTY_METADATA, supplierOf, type PackageMetadata, type Supplier } from '../../model/metadata.js';
import type { RegistryEndpoint, RegistryHttp } from '../types.js';
import { record, text } from '../shared/narrow.js';

/**
 * Metadata from the pub API (`PACKAGE_REGISTRIES.pub`, https://pub.dev): the version's pubspec
 * (`GET /api/packages/<name>/versions/<version>`: description, homepage, repository) and its
 * license from the package score's tags (`GET /api/packages/<name>/score`: `license:<spdx id>`,
 * lower-cased; pub.dev's own analysis of the LICENSE file). No tag: unknown, never guessed.
 */

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

/**
 * The pub API of one repository: what the analysis (metadata) and package targets (versions,
 * archives, provenance) ask of it. Documents are null when missing (404/410); other failures are
 * the HTTP access's (see `RegistryHttp`), which each caller turns into its own.
 */
export class PubRegistry {
  private readonly base: string;

  constructor(
    base: string,
    private readonly http: RegistryHttp,
  ) {
    this.base = base.replace(/\/+$/, '');
  }

  private packageUrl(name: string): string {
    return `${this.base}/api/packages/${encodeURIComponent(name)}`;
  }

  /** `GET /api/packages/<name>`: every version, each with its `archive_url`, `pubspec` and `retracted`. */
  package(name: string, signal?: AbortSignal): Promise<unknown> {
    return this.http.json(this.packageUrl(name), { signal });
  }

  /** `GET /api/packages/<name>/versions/<version>`: one version's document. */
  version(name: string, version: string, signal?: AbortSignal): Promise<unknown> {
    return this.http.json(`${this.packageUrl(name)}/versions/${encodeURIComponent(version)}`, { signal });
  }

  /** `GET /api/packages/<name>/score`: pub.dev's analysis, whose tags name the license and the verified publisher. */
  score(name: string, signal?: AbortSignal): Promise<unknown> {
    return this.http.json(`${this.packageUrl(name)}/score`, { signal });
  }
}

export function pubMetadataClient(endpoint: RegistryEndpoint): MetadataClient {
  const registry = new PubRegistry(endpoint.base, endpoint.http);
  return {
    async fetch(name, version, signal): Promise<PackageMetadata | null> {
      const doc = record(await registry.version(name, version, signal));
      if (doc === null) return null;
      const score = record(await registry.score(name, signal));
      return pubMetadata(doc, score);
    },
  };
}
