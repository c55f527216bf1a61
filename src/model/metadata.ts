/**
 * Who supplies a package (NTIA's "supplier name"), as each registry names it: a person or an
 * organization, `party` in npm's person form "Name <email> (url)" (the renderers fit its parts).
 */
export interface Supplier {
  readonly kind: 'person' | 'organization';
  readonly party: string;
}

/** Registry facts about one package version (a coordinate), merged over what the lockfile gave. */
export interface PackageMetadata {
  readonly license: string | null;
  readonly description: string | null;
  readonly homepage: string | null;
  readonly repository: string | null;
  readonly author: string | null;
  readonly deprecated: string | null;
  /** Absent in entries cached before suppliers were read (the caches' format number makes those misses). */
  readonly supplier?: Supplier | null;
}

/**
 * The shape of `PackageMetadata` the caches store, raised whenever a field is added: an entry
 * written in an older shape is a miss (fetched again), never a package without the new field for
 * the rest of its age. 2: `supplier`.
 */
export const METADATA_FORMAT = 2;

export const EMPTY_METADATA: PackageMetadata = {
  license: null,
  description: null,
  homepage: null,
  repository: null,
  author: null,
  deprecated: null,
  supplier: null,
};

/** A supplier of `kind` when `party` names one (null otherwise). */
export function supplierOf(kind: Supplier['kind'], party: string | null | undefined): Supplier | null {
  const text = typeof party === 'string' ? party.trim() : '';
  return text === '' ? null : { kind, party: text };
}

/**
 * The cache and lookup key of a package version. npm keys stay `name@version` (the keys caches
 * were written with before other ecosystems existed; no npm name contains a colon); every other
 * ecosystem's key starts with its purl type.
 */
export function coordinateKey(ecosystem: string, name: string, version: string): string {
  return ecosystem === 'npm' ? `${name}@${version}` : `${ecosystem}:${name}@${version}`;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A person as npm's person string, "Name <email> (url)" (the renderers fit its parts to each
 * document): a string as it is, `{name, email, url}` (`mail`, `web` in old manifests) written so.
 */
export function personText(value: unknown): string | null {
  if (typeof value === 'string') return text(value);
  if (!isRecord(value)) return null;
  const email = text(value['email']) ?? text(value['mail']);
  const url = text(value['url']) ?? text(value['web']);
  const parts = [text(value['name']), email === null ? null : `<${email}>`, url === null ? null : `(${url})`].filter((p): p is string => p !== null);
  return parts.length === 0 ? null : parts.join(' ');
}

/** A repository field as a URL: `git+https://…`, `{url}`, or `github:owner/repo` shorthand. */
export function repositoryUrl(value: unknown): string | null {
  const raw = isRecord(value) ? text(value['url']) : text(value);
  if (raw === null) return null;
  const shorthand = /^(github|gitlab|bitbucket):([\w.-]+\/[\w.-]+)$/.exec(raw);
  if (shorthand?.[1] && shorthand[2]) {
    const host = { github: 'github.com', gitlab: 'gitlab.com', bitbucket: 'bitbucket.org' }[shorthand[1]];
    return host === undefined ? raw : `https://${host}/${shorthand[2]}`;
  }
  if (/^[\w.-]+\/[\w.-]+$/.test(raw)) return `https://github.com/${raw}`;
  return raw;
}

/** One license or a list of them (`"MIT"`, `{type, url}`, arrays of either), as one string (several become an OR). */
function licenses(value: unknown): string | null {
  if (typeof value === 'string') return text(value);
  if (isRecord(value)) return text(value['type']) ?? text(value['name']);
  if (!Array.isArray(value)) return null;
  const types = value.map((l) => (isRecord(l) ? (text(l['type']) ?? text(l['name'])) : text(l))).filter((t): t is string => t !== null);
  if (types.length <= 1) return types[0] ?? null;
  return `(${types.join(' OR ')})`;
}

/** A license field in any of its historical shapes: `license` first, else the legacy `licenses`. */
export function licenseField(doc: Record<string, unknown>): string | null {
  return licenses(doc['license']) ?? licenses(doc['licenses']);
}

/** The facts of a registry version document (`GET /<name>/<version>` or a packument's version). */
export function metadataFromManifest(doc: unknown): PackageMetadata {
  if (!isRecord(doc)) return EMPTY_METADATA;
  return {
    license: licenseField(doc),
    description: text(doc['description']),
    homepage: text(doc['homepage']),
    repository: repositoryUrl(doc['repository']),
    author: personText(doc['author']),
    deprecated: text(doc['deprecated']),
    // npm's supplier: the author, else the first maintainer (who publishes it under their account).
    supplier: supplierOf('person', personText(doc['author']) ?? (Array.isArray(doc['maintainers']) ? personText(doc['maintainers'][0]) : null)),
  };
}
