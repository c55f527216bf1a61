import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model.js';

/**
 * Package URLs per the purl specification's `composer` type: `pkg:composer/<vendor>/<name>@<version>`
 * (names lowercased, as Composer compares them; the version as the lock records it, `v1.2.6` stays).
 * A package of a VCS repository adds `vcs_url` (`git+<url>@<reference>`), one of another repository
 * `repository_url`. Path packages and the project have no purl.
 */
export function composerPurl(occurrence: Occurrence): string | null {
  if (occurrence.version === null) return null;
  const cut = occurrence.name.indexOf('/');
  if (cut <= 0) return null;
  const qualifiers: Record<string, string> = {};
  switch (occurrence.source) {
    case 'registry':
      break;
    case 'tarball': {
      const repository = occurrence.facts['repository'];
      if (repository !== undefined) qualifiers['repository_url'] = repository;
      break;
    }
    case 'git':
      if (occurrence.resolved !== null) qualifiers['vcs_url'] = occurrence.resolved;
      break;
    default:
      return null;
  }
  const name = occurrence.name.toLowerCase();
  try {
    return new PackageURL('composer', name.slice(0, cut), name.slice(cut + 1), occurrence.version, qualifiers, undefined).toString();
  } catch {
    return null;
  }
}
