import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model/model.js';

/**
 * `pkg:pub/<name>@<version>` per the purl specification's `pub` type; a package hosted elsewhere
 * than pub.dev adds `repository_url`, a git package `vcs_url` (its resolved commit). Path
 * packages have no purl.
 */
export function pubPurl(o: Occurrence): string | null {
  if (o.version === null || o.source === 'root' || o.source === 'file' || o.source === 'workspace') return null;
  const qualifiers: Record<string, string> = {};
  const hosted = o.facts['hosted_url'];
  if (hosted !== undefined) qualifiers['repository_url'] = hosted;
  if (o.source === 'git' && o.resolved !== null) {
    const [url, commit] = o.resolved.split('#');
    qualifiers['vcs_url'] = `git+${url ?? ''}${commit === undefined ? '' : `@${commit}`}`;
  }
  try {
    return new PackageURL('pub', undefined, o.name.toLowerCase(), o.version, Object.keys(qualifiers).length === 0 ? undefined : qualifiers, undefined).toString();
  } catch {
    return null;
  }
}
