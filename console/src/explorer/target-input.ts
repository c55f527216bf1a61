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
