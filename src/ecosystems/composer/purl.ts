import type { Occurrence } from '../../model/model.js';
import { purlText, sourceQualifiers } from '../shared/purl.js';

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
  const qualifiers = sourceQualifiers(occurrence, 'repository');
  if (qualifiers === null) return null;
  const name = occurrence.name.toLowerCase();
  return purlText('composer', name.slice(0, cut), name.slice(cut + 1), occurrence.version, qualifiers);
}
