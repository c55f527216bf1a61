import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model.js';
import { baseOf } from './lockfile.js';

/**
 * `pkg:cocoapods/<Pod>@<version>[#<Subspec>]` per the purl specification's `cocoapods` type: a
 * subspec is its pod's package with the subspec as subpath, never a package of its own.
 */
export function cocoapodsPurl(o: Occurrence): string | null {
  if (o.version === null || o.source === 'root') return null;
  const base = baseOf(o.name);
  const subpath = o.name.length > base.length ? o.name.slice(base.length + 1) : undefined;
  try {
    return new PackageURL('cocoapods', undefined, base, o.version, undefined, subpath).toString();
  } catch {
    return null;
  }
}
