/**
 * What the user typed, as a list target: targets (`npm:react@18.3.1`, `github:o/r@ref`,
 * `site:docs.example.com/guide`) pass unchanged; a repository's web address becomes its
 * repository target (a `/tree/<ref>` or `/-/tree/<ref>` or `/src/<ref>` part its ref); any other
 * web address becomes a site target.
 */

const REPOSITORY_HOSTS: Readonly<Record<string, string>> = {
  'github.com': 'github',
  'www.github.com': 'github',
  'gitlab.com': 'gitlab',
  'www.gitlab.com': 'gitlab',
  'bitbucket.org': 'bitbucket',
  'www.bitbucket.org': 'bitbucket',
};

export function targetFromInput(input: string): string {
  const text = input.trim();
  if (!/^https?:\/\//i.test(text)) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  const kind = REPOSITORY_HOSTS[url.hostname.toLowerCase()];
  const parts = url.pathname.split('/').filter((p) => p !== '');
  const [owner, repo] = parts;
  if (kind !== undefined && owner !== undefined && repo !== undefined) {
    const name = repo.replace(/\.git$/i, '');
    const rest = parts.slice(2).filter((p) => p !== '-');
    const ref = (rest[0] === 'tree' || rest[0] === 'src' || rest[0] === 'commit') && rest[1] !== undefined ? decodeURIComponent(rest[1]) : null;
    return `${kind}:${owner}/${name}${ref === null ? '' : `@${ref}`}`;
  }
  const path = url.pathname.replace(/\/+$/, '');
  return `site:${url.host}${path}`;
}

/** The registry prefixes of package targets, as the service's target grammar names them. */
const PACKAGE_PREFIXES = ['npm', 'crates', 'cargo', 'pypi', 'go', 'golang', 'maven', 'rubygems', 'gem', 'nuget', 'packagist', 'composer', 'pub', 'hex'] as const;

/** Whether the text (as `targetFromInput` answers it) is a package target: `<registry>:<name>[@<version>]`. */
export function isPackageTarget(target: string): boolean {
  const colon = target.indexOf(':');
  if (colon <= 0 || colon === target.length - 1) return false;
  const prefix = target.slice(0, colon).toLowerCase();
  return (PACKAGE_PREFIXES as readonly string[]).includes(prefix);
}

/** Package URL types the service has package targets for, and the target prefix of each. */
const PURL_TYPES: Readonly<Record<string, string>> = {
  npm: 'npm',
  pypi: 'pypi',
  cargo: 'crates',
  golang: 'go',
  maven: 'maven',
  gem: 'rubygems',
  nuget: 'nuget',
  composer: 'packagist',
  pub: 'pub',
  hex: 'hex',
};

function decoded(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/**
 * The package target a package URL names (`pkg:npm/%40scope/name@1.0.0` → `npm:@scope/name@1.0.0`,
 * `pkg:maven/org.group/artifact@2` → `maven:org.group:artifact@2`), or null when its type has no
 * package target or the URL is malformed. Qualifiers and subpath are dropped.
 */
export function targetOfPurl(purl: string): string | null {
  const match = /^pkg:([A-Za-z][A-Za-z0-9.+-]*)\/([^?#]+)/.exec(purl.trim());
  if (match === null) return null;
  const type = (match[1] ?? '').toLowerCase();
  const prefix = PURL_TYPES[type];
  if (prefix === undefined) return null;
  let rest = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  let version: string | null = null;
  const at = rest.lastIndexOf('@');
  if (at > 0) {
    version = decoded(rest.slice(at + 1));
    rest = rest.slice(0, at);
  }
  const parts = rest.split('/').map(decoded);
  if (parts.some((p) => p === null || p === '')) return null;
  const segments = parts as string[];
  const name = segments.at(-1) ?? '';
  const namespace = segments.slice(0, -1);
  let target: string;
  if (prefix === 'maven') {
    if (namespace.length !== 1) return null;
    target = `${namespace[0] ?? ''}:${name}`;
  } else if (prefix === 'packagist') {
    if (namespace.length !== 1) return null;
    target = `${namespace[0] ?? ''}/${name}`;
  } else if (prefix === 'npm') {
    if (namespace.length > 1) return null;
    target = namespace.length === 1 ? `${namespace[0] ?? ''}/${name}` : name;
    if (namespace.length === 1 && !target.startsWith('@')) target = `@${target}`;
  } else if (prefix === 'go') {
    target = [...namespace, name].join('/');
  } else {
    if (namespace.length > 0) return null;
    target = name;
  }
  return `${prefix}:${target}${version === null || version === '' ? '' : `@${version}`}`;
}
