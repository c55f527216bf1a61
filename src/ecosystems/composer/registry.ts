import type { MetadataClient } from '../../model/enrich-types.js';
import type { PackageMetadata } from '../../model/metadata.js';
import type { RegistryEndpoint } from '../types.js';
import { personText, supplierOf } from '../../model/metadata.js';
import { isRecord, licenseOf, text } from './manifest.js';

/**
 * Metadata from Packagist's Composer v2 repository: `GET /p2/<vendor>/<name>.json` lists the
 * tagged versions, `GET /p2/<vendor>/<name>~dev.json` the branches (`dev-main`, `1.x-dev`). The
 * list is minified (`"minified": "composer/2.0"`): the first version is whole, each later one
 * states only what changed from the one before, `"__unset"` removing a key (Composer's
 * MetadataMinifier::expand). The lock's own license comes first (the pipeline merges registry
 * facts over an absent one only).
 */

type Version = Record<string, unknown>;

/** Composer's MetadataMinifier::expand. */
export function expandMinified(versions: readonly unknown[]): Version[] {
  const out: Version[] = [];
  let previous: Version | null = null;
  for (const v of versions) {
    if (!isRecord(v)) continue;
    const base: Version = previous ?? {};
    // Keys the previous version had and this one neither restates nor unsets carry over.
    const next: Version = Object.fromEntries([...Object.entries(base), ...Object.entries(v)].filter(([, value]) => value !== '__unset'));
    for (const [key, value] of Object.entries(v)) if (value === '__unset') Reflect.deleteProperty(next, key);
    out.push(next);
    previous = next;
  }
  return out;
}

/** A branch version (`dev-main`, `2.x-dev`) is in the `~dev` file. */
export function isDevVersion(version: string): boolean {
  return version.startsWith('dev-') || version.endsWith('-dev');
}

/** The first of `authors` (`{name, email, homepage}`) as "Name <email> (homepage)". */
function authorOf(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  const first: unknown = value[0];
  if (!isRecord(first)) return null;
  return personText({ name: first['name'], email: first['email'], url: first['homepage'] });
}

function deprecation(value: unknown): string | null {
  if (value === true) return 'abandoned';
  const replacement = text(value);
  return replacement === null ? null : `abandoned, use ${replacement}`;
}

/** The facts of one version of a Composer repository's package list (expanded). */
export function composerMetadata(found: Version): PackageMetadata {
  const source = isRecord(found['source']) ? text(found['source']['url']) : null;
  const support = isRecord(found['support']) ? text(found['support']['source']) : null;
  return {
    license: licenseOf(found['license']),
    description: text(found['description']),
    homepage: text(found['homepage']),
    repository: source ?? support,
    author: authorOf(found['authors']),
    deprecated: deprecation(found['abandoned']),
    // Packagist's vendor namespace belongs to whoever publishes under it.
    supplier: supplierOf('organization', text(found['name'])?.split('/')[0]),
  };
}

/**
 * Packagist's metadata file of a package (`/p2/<vendor>/<name>.json`; `~dev` for its dev versions)
 * under `base` (no trailing slash); `name` as Packagist keys it (lower-case).
 */
export function packageUrl(base: string, name: string, dev = false): string {
  return `${base}/p2/${name.split('/').map(encodeURIComponent).join('/')}${dev ? '~dev' : ''}.json`;
}

export function packagistMetadataClient(registry: RegistryEndpoint): MetadataClient {
  const base = registry.base.replace(/\/+$/, '');
  return {
    async fetch(name, version, signal): Promise<PackageMetadata | null> {
      const lower = name.toLowerCase();
      const doc = await registry.http.json(packageUrl(base, lower, isDevVersion(version)), { signal });
      if (!isRecord(doc) || !isRecord(doc['packages'])) return null;
      const list = doc['packages'][lower];
      if (!Array.isArray(list)) return null;
      const versions = doc['minified'] === 'composer/2.0' ? expandMinified(list) : list.filter(isRecord);
      const strip = (v: string): string => v.replace(/^v(?=\d)/i, '');
      const found = versions.find((v) => v['version'] === version) ?? versions.find((v) => typeof v['version'] === 'string' && strip(v['version']) === strip(version));
      if (found === undefined) return null;
      return composerMetadata(found);
    },
  };
}
