import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model/model.js';
import { baseOf } from './lockfile.js';

/**
 * `pkg:cocoapods/<Pod>@<version>[#<Subspec>]` per the purl specification's `cocoapods` type: a
 * subspec is its pod's package with the subspec as subpath, never a package of its own. A pod
 * from EXTERNAL SOURCES is not the trunk's: a `:path` or `:podspec` pod is a local component
 * without a purl (as path packages are in every ecosystem here), a `:git` pod is qualified by
 * `vcs_url` at its checked-out commit.
 */
export function cocoapodsPurl(o: Occurrence): string | null {
  if (o.version === null || o.source === 'root' || o.source === 'file') return null;
  const base = baseOf(o.name);
  const subpath = o.name.length > base.length ? o.name.slice(base.length + 1) : undefined;
  let qualifiers: Record<string, string> | undefined;
  if (o.source === 'git' && o.resolved !== null) {
    const [url, commit] = o.resolved.split('#');
    qualifiers = { vcs_url: `git+${url ?? ''}${commit === undefined ? '' : `@${commit}`}` };
  }
  try {
    return new PackageURL('cocoapods', undefined, base, o.version, qualifiers, subpath).toString();
  } catch {
    return null;
  }
}
