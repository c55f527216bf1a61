import type { MetadataClient } from '../../model/enrich-types.js';
import { supplierOf, type PackageMetadata } from '../../model/metadata.js';
import type { RegistryEndpoint } from '../types.js';
import { licenseExpression } from './gemspec.js';
import { record, text } from '../shared/narrow.js';

/**
 * Metadata from the RubyGems.org API v2, one request per coordinate:
 * `GET /api/v2/rubygems/<name>/versions/<version>.json` (the generic `ruby` platform's build, which
 * every platform build of a version shares its gemspec facts with). rubygems.org answers with the
 * gem's fields (`info`, `licenses`, `authors`, `homepage_uri`, `source_code_uri`, `metadata`,
 * `yanked`); older servers answer with the version's (`summary`, `description`, `licenses`), so both
 * are read. `licenses` lists alternatives (RubyGems documents several licenses as a choice, like
 * Ruby's own "Ruby or BSD-2-Clause"): joined with OR.
 */

function licenses(value: unknown): string | null {
  if (typeof value === 'string') return text(value);
  if (!Array.isArray(value)) return null;
  return licenseExpression(value.filter((v): v is string => typeof v === 'string'));
}

/** The facts of a version document of the RubyGems API v2. */
export function rubygemsMetadata(doc: Record<string, unknown>): PackageMetadata {
  const meta = record(doc['metadata']) ?? {};
  return {
    license: licenses(doc['licenses']),
    description: text(doc['info']) ?? text(doc['summary']) ?? text(doc['description']),
    homepage: text(doc['homepage_uri']) ?? text(meta['homepage_uri']),
    repository: text(doc['source_code_uri']) ?? text(meta['source_code_uri']),
    author: text(doc['authors']),
    // One supplier: the first of the authors ("Mike Dalessio, Aaron Patterson").
    supplier: supplierOf('person', text(doc['authors'])?.split(',')[0]),
    deprecated: doc['yanked'] === true ? 'yanked' : null,
  };
}

/** RubyGems' version document (`/api/v2/rubygems/<name>/versions/<version>.json`) under `base` (no trailing slash): metadata and provenance both read it. */
export function versionUrl(base: string, name: string, version: string): string {
  return `${base}/api/v2/rubygems/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}.json`;
}

export function rubygemsMetadataClient(registry: RegistryEndpoint): MetadataClient {
  const base = registry.base.replace(/\/+$/, '');
  return {
    async fetch(name, version, signal): Promise<PackageMetadata | null> {
      const doc = record(await registry.http.json(versionUrl(base, name, version), { signal }));
      if (doc === null) return null;
      return rubygemsMetadata(doc);
    },
  };
}
