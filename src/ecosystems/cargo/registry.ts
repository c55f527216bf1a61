import type { MetadataClient } from '../../model/enrich-types.js';
import { personText, supplierOf, type PackageMetadata } from '../../model/metadata.js';
import type { RegistryEndpoint } from '../types.js';
import { record, text } from '../shared/narrow.js';

/**
 * Metadata from the crates.io web API. One request per coordinate: the version document
 * (`GET /api/v1/crates/<name>/<version>`) carries the version's SPDX `license` and, since 2024,
 * its `description`, `homepage` and `repository`. Only a registry that predates those fields (a
 * mirror or an older crates.io) costs a second request, for the crate document
 * (`GET /api/v1/crates/<name>`). crates.io asks for a User-Agent; the registry HTTP client sends one.
 */

/** `published_by` ({login, name, url}): the name, else the login, with the profile link. */
function publisher(value: unknown): string | null {
  const user = record(value);
  if (user === null) return null;
  return personText({ name: text(user['name']) ?? text(user['login']), url: user['url'] });
}

const DESCRIPTIVE = ['description', 'homepage', 'repository'] as const;

/** The facts of a version document's `version`, descriptive ones from `described` (itself, or the crate document's `crate`). */
export function crateMetadata(version: Record<string, unknown>, described: Record<string, unknown>): PackageMetadata {
  return {
    license: text(version['license']),
    description: text(described['description']),
    homepage: text(described['homepage']),
    repository: text(described['repository']),
    // crates.io no longer publishes authors; who published a version is not its author.
    author: null,
    deprecated: version['yanked'] === true ? (text(version['yank_message']) ?? 'yanked') : null,
    // Who published this version supplied it (crates.io lists owners only by a request of their own).
    supplier: supplierOf('person', publisher(version['published_by'])),
  };
}

/** The crates.io API's crate document (`/api/v1/crates/<name>`; `/<version>` and `/<version>/download` below it) under `base` (no trailing slash). */
export function crateUrl(base: string, name: string): string {
  return `${base}/api/v1/crates/${encodeURIComponent(name)}`;
}

export function cratesMetadataClient(registry: RegistryEndpoint): MetadataClient {
  const base = registry.base.replace(/\/+$/, '');
  return {
    async fetch(name, version, signal): Promise<PackageMetadata | null> {
      const doc = record(await registry.http.json(`${crateUrl(base, name)}/${encodeURIComponent(version)}`, { signal }));
      const v = record(doc?.['version']);
      if (v === null) return null;
      let described: Record<string, unknown> = v;
      if (!DESCRIPTIVE.some((key) => key in v)) {
        described = record(record(await registry.http.json(crateUrl(base, name), { signal }))?.['crate']) ?? {};
      }
      return crateMetadata(v, described);
    },
  };
}
