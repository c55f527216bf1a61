/**
 * A registry's repository field turned into a safe repository root for recovery guidance:
 * `https://host/owner/repo`, with no `git+` prefix, no `.git` suffix, no credentials, port, query
 * or fragment, and no deep link (`/tree/main/packages/x`). Written here rather than with
 * hosted-git-info because that library knows three hosts only, and any host's root is wanted.
 */

const HOST_SHORTHANDS: Readonly<Record<string, string>> = { github: 'github.com', gitlab: 'gitlab.com', bitbucket: 'bitbucket.org' };
/** Hosts whose repositories are exactly `owner/repo` (others, like GitLab, nest groups). */
const TWO_SEGMENT_HOSTS = new Set(['github.com', 'bitbucket.org', 'codeberg.org']);
/** Path segments where a browsing link leaves the repository root. */
const DEEP_LINK = new Set(['tree', 'blob', '-', 'src', 'commit', 'commits', 'issues', 'pulls', 'wiki']);

export function safeRepositoryRoot(raw: string | null): string | null {
  if (raw === null) return null;
  let text = raw.trim().replace(/^git\+/, '');
  const shorthand = /^(github|gitlab|bitbucket):([\w.-]+\/[\w.-]+)$/.exec(text);
  if (shorthand?.[1] && shorthand[2]) text = `https://${HOST_SHORTHANDS[shorthand[1]] ?? ''}/${shorthand[2]}`;
  else if (/^[\w.-]+\/[\w.-]+$/.test(text)) text = `https://github.com/${text}`;
  // scp-like `git@host:owner/repo.git`.
  const scp = /^(?:[\w.-]+@)?([\w.-]+\.[a-z]{2,}):(?!\/\/)(.+)$/i.exec(text);
  if (scp?.[1] && scp[2]) text = `https://${scp[1]}/${scp[2]}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (!['http:', 'https:', 'git:', 'ssh:', 'git+ssh:'].includes(url.protocol) || url.hostname === '') return null;
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const cut = segments.findIndex((s, i) => i >= 2 && DEEP_LINK.has(s));
  let path = cut === -1 ? segments : segments.slice(0, cut);
  if (TWO_SEGMENT_HOSTS.has(url.hostname.toLowerCase())) path = path.slice(0, 2);
  if (path.length < 2) return null;
  const last = path.length - 1;
  path[last] = (path[last] ?? '').replace(/\.git$/i, '');
  if (path[last] === '') return null;
  return `https://${url.hostname.toLowerCase()}/${path.map((s) => encodeURIComponent(decodeURIComponentSafe(s))).join('/')}`;
}

function decodeURIComponentSafe(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const CODE_HOST = /^https?:\/\/(www\.)?(github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)\/[^/]+\/[^/#?]+/i;

/**
 * The first of a registry's URLs (project links, home page, source URI) that names a repository
 * on a known code host, as that repository's root; null when none does. A home page elsewhere is
 * a web site, not a repository.
 */
export function codeHostRepository(urls: readonly unknown[]): string | null {
  for (const url of urls) if (typeof url === 'string' && CODE_HOST.test(url)) return CODE_HOST.exec(url)?.[0] ?? null;
  return null;
}
