import type { MetadataClient } from '../../model/enrich-types.js';
import { supplierOf, type PackageMetadata } from '../../model/metadata.js';
import type { RegistryEndpoint } from '../types.js';
import { obj, str, strings } from './data.js';
import { pep503 } from './names.js';

/** License classifiers whose meaning is one exact SPDX identifier (vaguer ones, "BSD License", are not mapped). */
const CLASSIFIERS: Readonly<Record<string, string>> = {
  'License :: OSI Approved :: MIT License': 'MIT',
  'License :: OSI Approved :: Apache Software License': 'Apache-2.0',
  'License :: OSI Approved :: ISC License (ISCL)': 'ISC',
  'License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)': 'MPL-2.0',
  'License :: OSI Approved :: GNU General Public License v3 (GPLv3)': 'GPL-3.0-only',
  'License :: OSI Approved :: GNU General Public License v2 (GPLv2)': 'GPL-2.0-only',
  'License :: OSI Approved :: GNU Lesser General Public License v3 (LGPLv3)': 'LGPL-3.0-only',
  'License :: OSI Approved :: The Unlicense (Unlicense)': 'Unlicense',
  'License :: OSI Approved :: Python Software Foundation License': 'PSF-2.0',
  'License :: OSI Approved :: zlib/libpng License': 'Zlib',
  'License :: CC0 1.0 Universal (CC0 1.0) Public Domain Dedication': 'CC0-1.0',
};

/**
 * A package's license as PyPI states it: PEP 639 `license_expression`, else a short `license`
 * (a whole license text pasted there names no license), else the exact license classifiers.
 */
export function pypiLicense(info: Record<string, unknown>): string | null {
  const expression = str(info['license_expression']);
  if (expression !== null) return expression;
  const license = str(info['license'])?.trim() ?? null;
  if (license !== null && license.length <= 100 && !license.includes('\n')) return license;
  const mapped = [...new Set(strings(info['classifiers']).flatMap((c) => (CLASSIFIERS[c] === undefined ? [] : [CLASSIFIERS[c]])))];
  return mapped.length === 0 ? null : mapped.length === 1 ? (mapped[0] ?? null) : mapped.join(' OR ');
}

function projectUrl(urls: Record<string, unknown>, names: readonly string[]): string | null {
  for (const [key, value] of Object.entries(urls)) if (names.includes(key.toLowerCase())) return str(value);
  return null;
}

/**
 * `author`, with `author_email` where that is a bare address; else `author_email` alone (where
 * PEP 621 projects put "Name <email>").
 */
function authorOf(info: Record<string, unknown>, role: 'author' | 'maintainer' = 'author'): string | null {
  const author = str(info[role])?.trim() || null;
  const email = str(info[`${role}_email`])?.trim() || null;
  if (author === null) return email;
  return email !== null && /^[^\s<>(),@]+@[^\s<>(),@]+$/.test(email) && !author.includes('<') ? `${author} <${email}>` : author;
}

/** The facts of a release document of the PyPI JSON API. */
export function pypiMetadata(doc: unknown): PackageMetadata {
  const info = obj(obj(doc)['info']);
  const urls = obj(info['project_urls']);
  return {
    license: pypiLicense(info),
    description: str(info['summary']),
    homepage: str(info['home_page']) ?? projectUrl(urls, ['homepage', 'home']),
    repository: projectUrl(urls, ['source', 'source code', 'repository', 'code', 'github']),
    author: authorOf(info),
    supplier: supplierOf('person', authorOf(info) ?? authorOf(info, 'maintainer')),
    deprecated: obj(doc)['info'] !== undefined && info['yanked'] === true ? `yanked${str(info['yanked_reason']) === null ? '' : `: ${str(info['yanked_reason']) ?? ''}`}` : null,
  };
}

/** The PyPI JSON API's project document (`/pypi/<name>/json`) under `base` (no trailing slash). */
export function projectDocumentUrl(base: string, name: string): string {
  return `${base}/pypi/${encodeURIComponent(pep503(name))}/json`;
}

/** The PyPI JSON API's release document (`/pypi/<name>/<version>/json`) under `base`. */
export function releaseUrl(base: string, name: string, version: string): string {
  return `${base}/pypi/${encodeURIComponent(pep503(name))}/${encodeURIComponent(version)}/json`;
}

/** Metadata of one release from the PyPI JSON API (`/pypi/<name>/<version>/json`). */
export function pypiMetadataClient(registry: RegistryEndpoint): MetadataClient {
  return {
    async fetch(name, version, signal) {
      const doc = await registry.http.json(releaseUrl(registry.base, name, version), signal ? { signal } : {});
      if (doc === null) return null;
      return pypiMetadata(doc);
    },
  };
}
