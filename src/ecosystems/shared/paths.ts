/** Upload paths, `/`-separated, as every ecosystem reads them (a manifest's directory, a relative reference). */

/** Directory of an upload path (`''` at the top). */
export function dirOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut === -1 ? '' : path.slice(0, cut);
}

/**
 * `rel` against directory `dir`, `/`-separated and normalised; may start with `../`. An absolute
 * path (`/srv/x`, `C:\\x`) stays absolute: it names a directory outside the upload.
 */
export function joinDir(dir: string, rel: string): string {
  const path = rel.replace(/\\/g, '/');
  const absolute = /^(\/|[A-Za-z]:)/.exec(path)?.[0] ?? null;
  const out: string[] = [];
  for (const seg of (absolute === null ? `${dir}/${path}` : path.slice(absolute.length)).split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else out.push(seg);
  }
  return absolute === null ? out.join('/') : `${absolute === '/' ? '' : absolute}/${out.join('/')}`;
}
