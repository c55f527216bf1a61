import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model.js';

/**
 * Package URLs per the purl specification's `gem` type: `pkg:gem/<name>@<version>`, with the
 * `platform` qualifier for a platform-specific gem (`?platform=x86_64-linux`; the generic `ruby`
 * platform is the default and not written), `repository_url` for a gem server other than
 * rubygems.org and `vcs_url` (`git+<url>@<revision>`) for a GIT gem. Local (PATH) gems and the
 * project itself have no purl.
 */
export function gemPurl(occurrence: Occurrence): string | null {
  if (occurrence.version === null) return null;
  const qualifiers: Record<string, string> = {};
  const platform = occurrence.facts['platform'];
  if (platform !== undefined) qualifiers['platform'] = platform;
  switch (occurrence.source) {
    case 'registry':
      break;
    case 'tarball': {
      const registry = occurrence.facts['registry'];
      if (registry !== undefined) qualifiers['repository_url'] = registry;
      break;
    }
    case 'git':
      if (occurrence.resolved !== null) qualifiers['vcs_url'] = occurrence.resolved;
      break;
    default:
      return null;
  }
  try {
    return new PackageURL('gem', undefined, occurrence.name, occurrence.version, qualifiers, undefined).toString();
  } catch {
    return null;
  }
}
