import type { MetadataClient } from '../../model/enrich-types.js';
import { EMPTY_METADATA, personText, supplierOf, type PackageMetadata } from '../../model/metadata.js';
import type { RegistryEndpoint } from '../types.js';
import { record, text } from '../shared/narrow.js';

/**
 * Metadata from the Hex API (`PACKAGE_REGISTRIES.hex`, https://hex.pm): `GET /api/packages/<name>`
 * gives `meta.licenses` (SPDX identifiers, several offered as a choice), `meta.description` and
 * `meta.links` (a map of labels to URLs), and `retirements` by version.
 */

/** The package's first owner (`owners`: {username, email, url}), else its first listed maintainer. */
function ownerOf(doc: Record<string, unknown>, meta: Record<string, unknown>): string | null {
  const owner = Array.isArray(doc['owners']) ? record(doc['owners'][0]) : null;
  if (owner !== null) return personText({ name: owner['username'], email: owner['email'], url: owner['url'] });
  return Array.isArray(meta['maintainers']) ? text(meta['maintainers'][0]) : null;
}

/** The facts of a package document of the Hex API, for one of its versions. */
export function hexMetadata(doc: Record<string, unknown>, version: string): PackageMetadata {
  const meta = record(doc['meta']) ?? {};
  const licenses = Array.isArray(meta['licenses']) ? meta['licenses'].filter((l): l is string => typeof l === 'string' && l.trim() !== '') : [];
  const links = Object.entries(record(meta['links']) ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string');
  const repository = links.find(([, url]) => /github\.com|gitlab\.com|bitbucket\.org|codeberg\.org/i.test(url))?.[1] ?? null;
  const retirement = record(record(doc['retirements'])?.[version]);
  return {
    ...EMPTY_METADATA,
    license: licenses.length === 0 ? null : licenses.length === 1 ? (licenses[0] ?? null) : `(${licenses.join(' OR ')})`,
    description: text(meta['description']),
    homepage: text(doc['html_url']) ?? links[0]?.[1] ?? null,
    repository,
    deprecated: retirement === null ? null : (text(retirement['message']) ?? text(retirement['reason']) ?? 'retired'),
    supplier: supplierOf('person', ownerOf(doc, meta)),
  };
}

/** The Hex API's package document (`/api/packages/<name>`: releases, metadata, links) under `base` (no trailing slash). */
export function packageUrl(base: string, name: string): string {
  return `${base}/api/packages/${encodeURIComponent(name)}`;
}

export function hexMetadataClient(registry: RegistryEndpoint): MetadataClient {
  const base = registry.base.replace(/\/+$/, '');
  return {
    async fetch(name, version, signal): Promise<PackageMetadata | null> {
      const doc = record(await registry.http.json(packageUrl(base, name), { signal }));
      if (doc === null) return null;
      return hexMetadata(doc, version);
    },
  };
}
