import { createHash } from 'node:crypto';
import type { MetadataClient } from '../../model/enrich-types.js';
import { EMPTY_METADATA, supplierOf, type PackageMetadata } from '../../model/metadata.js';
import type { RegistryEndpoint } from '../types.js';
import { baseOf } from './lockfile.js';
import { record, text } from '../shared/narrow.js';

/**
 * Pod metadata from the CocoaPods CDN (`PACKAGE_REGISTRIES.cocoapods`, https://cdn.cocoapods.org):
 * the podspec of a version at `Specs/<a>/<b>/<c>/<Pod>/<version>/<Pod>.podspec.json`, where a, b
 * and c are the first three hex digits of the MD5 of the pod's name (the trunk's sharding).
 * `license` is a string or `{type, file, text}`; `source.git` names the repository.
 */

export function podspecPath(pod: string, version: string): string {
  const md5 = createHash('md5').update(pod).digest('hex');
  return `Specs/${md5[0] ?? ''}/${md5[1] ?? ''}/${md5[2] ?? ''}/${encodeURIComponent(pod)}/${encodeURIComponent(version)}/${encodeURIComponent(pod)}.podspec.json`;
}

/** `authors` as a name, a list of names, or a map of names to emails: the first, "Name <email>". */
function authorOf(authors: unknown): string | null {
  if (typeof authors === 'string') return text(authors);
  const r = record(authors);
  if (r !== null) {
    const [name, email] = Object.entries(r)[0] ?? [];
    if (name === undefined) return null;
    return typeof email === 'string' && email !== '' ? `${name} <${email}>` : text(name);
  }
  return Array.isArray(authors) ? text(authors[0]) : null;
}

/** The facts of a podspec (its JSON form). */
export function podspecMetadata(spec: Record<string, unknown>): PackageMetadata {
  const replacement = text(spec['deprecated_in_favor_of']);
  return {
    ...EMPTY_METADATA,
    license: text(spec['license']) ?? text(record(spec['license'])?.['type']),
    description: text(spec['summary']) ?? text(spec['description']),
    homepage: text(spec['homepage']),
    repository: text(record(spec['source'])?.['git']),
    author: authorOf(spec['authors'] ?? spec['author']),
    supplier: supplierOf('person', authorOf(spec['authors'] ?? spec['author'])),
    deprecated: spec['deprecated'] === true ? (replacement === null ? 'deprecated' : `deprecated in favor of ${replacement}`) : null,
  };
}

export function cocoapodsMetadataClient(registry: RegistryEndpoint): MetadataClient {
  const base = registry.base.replace(/\/+$/, '');
  return {
    async fetch(name, version, signal): Promise<PackageMetadata | null> {
      const spec = record(await registry.http.json(`${base}/${podspecPath(baseOf(name), version)}`, { signal }));
      if (spec === null) return null;
      return podspecMetadata(spec);
    },
  };
}
