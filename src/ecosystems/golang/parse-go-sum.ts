import { checkBounds, GO_FILE_LIMITS, GoFileError, withoutBom } from './syntax.js';
import { isGoVersion } from './version.js';

/**
 * go.sum (and go.work.sum): one line per checksum, `<module> <version>[/go.mod] <hash>`
 * (https://go.dev/ref/mod#go-sum-files). `h1:` is the base64 SHA-256 of the module's file tree
 * (its "dirhash"), not of any downloadable artifact; a `/go.mod` line hashes only the go.mod.
 * Read as strictly as the go command reads it: a line that is not three fields is an error.
 */

export interface GoSum {
  /** `module@version` → the `h1:` hash of the module's content (zip lines only). */
  readonly content: ReadonlyMap<string, string>;
  /** `module@version` of every line, content or `/go.mod` (to count what is outside the build list). */
  readonly versions: ReadonlySet<string>;
}

export function parseGoSum(raw: string): GoSum {
  const text = withoutBom(raw);
  checkBounds(text);
  const content = new Map<string, string>();
  const versions = new Set<string>();
  let line = 0;
  for (const raw of text.split('\n')) {
    line++;
    const fields = raw.trim().split(/[ \t]+/);
    if (fields.length === 1 && fields[0] === '') continue;
    const [path, version, hash] = fields;
    if (fields.length !== 3 || path === undefined || version === undefined || hash === undefined) {
      throw new GoFileError('malformed', 'expected "<module> <version> <hash>"', line, 1);
    }
    const goModOnly = version.endsWith('/go.mod');
    const bare = goModOnly ? version.slice(0, -'/go.mod'.length) : version;
    if (!isGoVersion(bare)) throw new GoFileError('malformed', `invalid version ${JSON.stringify(bare.slice(0, 100))}`, line, path.length + 2);
    // Hashes are `<algorithm>:<base64>`; h1 is the only algorithm the go command has defined.
    if (!/^h\d+:[A-Za-z0-9+/]+=*$/.test(hash)) throw new GoFileError('malformed', 'invalid hash', line, raw.indexOf(hash) + 1);
    const key = `${path}@${bare}`;
    versions.add(key);
    if (!goModOnly && hash.startsWith('h1:')) content.set(key, hash);
    if (versions.size > GO_FILE_LIMITS.entries) throw new GoFileError('limit_exceeded', `more than ${GO_FILE_LIMITS.entries} module versions`, line);
  }
  return { content, versions };
}
