import type { MetadataClient } from '../../model/enrich-types.js';
import { EMPTY_METADATA, supplierOf, type PackageMetadata } from '../../model/metadata.js';
import type { RegistryEndpoint } from '../types.js';
import { licenseOfText, licenseTextOf } from './license-text.js';
import { record, text } from '../shared/narrow.js';

/**
 * Metadata from the NuGet v3 API: `PACKAGE_REGISTRIES.nuget` is the service index; its
 * `RegistrationsBaseUrl` resource (the SemVer 2.0.0 variant when offered) gives the registration
 * leaf `<base>/<id>/<version>.json`, whose `catalogEntry` (a URL, or inline) holds
 * `licenseExpression` — else, for a `licenseFile`, the license its text is (read from the page
 * `licenseUrl` names), else `licenseUrl`, kept as a named license — `description`,
 * `projectUrl`, `authors` and `deprecation`. Ids and versions are lower-cased in URLs.
 */

const PREFERRED = ['RegistrationsBaseUrl/3.6.0', 'RegistrationsBaseUrl/3.4.0', 'RegistrationsBaseUrl/3.0.0-rc', 'RegistrationsBaseUrl/3.0.0-beta', 'RegistrationsBaseUrl'];

/** The facts of a catalog entry (a registration leaf's `catalogEntry`). */
export function nugetMetadata(entry: Record<string, unknown>): PackageMetadata {
  const authors = entry['authors'];
  const deprecation = record(entry['deprecation']);
  return {
    ...EMPTY_METADATA,
    license: text(entry['licenseExpression']) ?? text(entry['licenseUrl']),
    description: text(entry['description']) ?? text(entry['summary']),
    homepage: text(entry['projectUrl']),
    author: typeof authors === 'string' ? text(authors) : Array.isArray(authors) ? text(authors[0]) : null,
    // NuGet's authors are nuget.org profile names, companies as often as people ("Microsoft").
    // One supplier: the first of them ("Microsoft, Contoso" or a list).
    supplier: supplierOf('organization', typeof authors === 'string' ? text(authors)?.split(',')[0] : Array.isArray(authors) ? text(authors[0]) : null),
    deprecated: deprecation === null ? null : (text(deprecation['message']) ?? 'deprecated'),
  };
}

export function nugetMetadataClient(registry: RegistryEndpoint): MetadataClient {
  let base: Promise<string | null> | null = null;
  const registrations = (signal?: AbortSignal): Promise<string | null> => {
    base ??= (async () => {
      const index = record(await registry.http.json(registry.base, { signal }));
      const resources = Array.isArray(index?.['resources']) ? (index['resources'] as unknown[]).map(record).filter((r): r is Record<string, unknown> => r !== null) : [];
      for (const type of PREFERRED) {
        const found = resources.find((r) => r['@type'] === type);
        const id = text(found?.['@id']);
        if (id !== null) return id.endsWith('/') ? id : `${id}/`;
      }
      return null;
    })();
    // A failed index read is asked again next time.
    base.catch(() => {
      base = null;
    });
    return base;
  };
  return {
    async fetch(name, version, signal): Promise<PackageMetadata | null> {
      const root = await registrations(signal);
      if (root === null) return null;
      const leaf = record(await registry.http.json(`${root}${encodeURIComponent(name.toLowerCase())}/${encodeURIComponent(version.toLowerCase())}.json`, { signal }));
      if (leaf === null) return null;
      const inline = record(leaf['catalogEntry']);
      const url = text(leaf['catalogEntry']);
      const entry = inline ?? (url === null ? null : record(await registry.http.json(url, { signal })));
      if (entry === null) return null;
      const metadata = nugetMetadata(entry);
      // A license file: its text says which license it is; the `licenseUrl` beside it is only
      // where to read that text (nuget.org's license page), never the license's name.
      if (text(entry['licenseFile']) === null || text(entry['licenseExpression']) !== null) return metadata;
      const page = text(entry['licenseUrl']);
      const body = page === null ? null : await registry.http.text(page, { signal, accept: 'text/html, text/plain;q=0.9' });
      return { ...metadata, license: body === null ? null : licenseOfText(licenseTextOf(body)) };
    },
  };
}
