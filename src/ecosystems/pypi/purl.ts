import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model/model.js';
import { pep503 } from './names.js';

/**
 * `pkg:pypi/<name>@<version>`, the name PEP 503 normalised as the purl specification asks
 * (lowercase, `_` → `-`); VCS sources carry `vcs_url`, archives `download_url`; local paths none.
 */
export function pypiPurl(o: Occurrence): string | null {
  if (o.version === null) return null;
  const qualifiers: Record<string, string> = {};
  if (o.source === 'git' && o.resolved !== null) qualifiers['vcs_url'] = o.resolved;
  else if (o.source === 'tarball' && o.resolved !== null) qualifiers['download_url'] = o.resolved;
  else if (o.source !== 'registry') return null;
  try {
    return new PackageURL('pypi', undefined, pep503(o.name), o.version, qualifiers, undefined).toString();
  } catch {
    return null;
  }
}
