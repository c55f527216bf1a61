import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model/model.js';
import { gitSource } from './source-id.js';

/**
 * Package URLs per the purl specification's `cargo` type: `pkg:cargo/<name>@<version>`, the
 * default repository being crates.io. A git crate adds `vcs_url` (`git+<url>@<commit>`), a crate
 * of another registry `repository_url`. Workspace members and path crates have no purl: they are
 * nobody's published package.
 */
export function cargoPurl(occurrence: Occurrence): string | null {
  if (occurrence.version === null) return null;
  const qualifiers: Record<string, string> = {};
  switch (occurrence.source) {
    case 'registry':
      break;
    case 'tarball': {
      const registry = occurrence.facts['registry'];
      if (registry !== undefined) qualifiers['repository_url'] = registry;
      break;
    }
    case 'git': {
      const git = occurrence.resolved === null ? null : gitSource(occurrence.resolved);
      if (git !== null) qualifiers['vcs_url'] = `git+${git.url}${git.commit === null ? '' : `@${git.commit}`}`;
      break;
    }
    default:
      return null;
  }
  try {
    return new PackageURL('cargo', undefined, occurrence.name, occurrence.version, qualifiers, undefined).toString();
  } catch {
    return null;
  }
}
