import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model/model.js';

/**
 * `pkg:hex/<package>@<version>` per the purl specification's `hex` type (a private
 * organisation's repository `hexpm:<org>` is the namespace). A git dependency keeps the type with
 * its commit as the version and `vcs_url` naming the repository; Mix resolves it under its app name.
 */
export function hexPurl(o: Occurrence): string | null {
  if (o.version === null || o.source === 'root' || o.source === 'file' || o.source === 'workspace') return null;
  const repo = o.facts['hex_repo'];
  const namespace = repo !== undefined && repo.startsWith('hexpm:') ? repo.slice('hexpm:'.length) : undefined;
  const qualifiers = o.source === 'git' && o.resolved !== null ? { vcs_url: `git+${o.resolved.replace(/#.*$/, '')}@${o.version}` } : undefined;
  try {
    return new PackageURL('hex', namespace, o.name.toLowerCase(), o.version, qualifiers, undefined).toString();
  } catch {
    return null;
  }
}
