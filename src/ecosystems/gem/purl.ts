import type { Occurrence } from '../../model/model.js';
import { purlText, sourceQualifiers } from '../shared/purl.js';

/**
 * Package URLs per the purl specification's `gem` type: `pkg:gem/<name>@<version>`, with the
 * `platform` qualifier for a platform-specific gem (`?platform=x86_64-linux`; the generic `ruby`
 * platform is the default and not written), `repository_url` for a gem server other than
 * rubygems.org and `vcs_url` (`git+<url>@<revision>`) for a GIT gem. Local (PATH) gems and the
 * project itself have no purl.
 */
export function gemPurl(occurrence: Occurrence): string | null {
  if (occurrence.version === null) return null;
  const qualifiers = sourceQualifiers(occurrence, 'registry');
  if (qualifiers === null) return null;
  const platform = occurrence.facts['platform'];
  return purlText('gem', undefined, occurrence.name, occurrence.version, platform === undefined ? qualifiers : { platform, ...qualifiers });
}
