import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model/model.js';

/** `@scope/name` → { group: '@scope', name: 'name' }. */
export function splitName(name: string): { group: string | null; name: string } {
  const match = /^(@[^/]+)\/(.+)$/.exec(name);
  return match?.[1] && match[2] ? { group: match[1], name: match[2] } : { group: null, name };
}

/** Package URL of an occurrence that came from a registry, a tarball URL or git; null otherwise. */
export function packageUrl(occurrence: Occurrence): string | null {
  if (occurrence.version === null) return null;
  const { group, name } = splitName(occurrence.name);
  const qualifiers: Record<string, string> = {};
  switch (occurrence.source) {
    case 'registry':
      break;
    case 'tarball':
      if (occurrence.resolved !== null) qualifiers['download_url'] = occurrence.resolved;
      break;
    case 'git':
      if (occurrence.resolved !== null) qualifiers['vcs_url'] = occurrence.resolved;
      break;
    default:
      return null;
  }
  try {
    return new PackageURL('npm', group ?? undefined, name, occurrence.version, qualifiers, undefined).toString();
  } catch {
    return null;
  }
}
