import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model/model.js';

/**
 * The qualifiers a package's source adds to its purl where the lockfile records the repository
 * URL in a fact (Composer, RubyGems): none for the default registry, `repository_url` (the fact
 * `repositoryFact`) for another one, `vcs_url` (the resolved `git+<url>@<ref>`) for a git
 * package. Null for a source that has no purl (a path, the project).
 */
export function sourceQualifiers(occurrence: Occurrence, repositoryFact: string): Record<string, string> | null {
  switch (occurrence.source) {
    case 'registry':
      return {};
    case 'tarball': {
      const repository = occurrence.facts[repositoryFact];
      return repository === undefined ? {} : { repository_url: repository };
    }
    case 'git':
      return occurrence.resolved === null ? {} : { vcs_url: occurrence.resolved };
    default:
      return null;
  }
}

/** The purl's text, or null when its parts do not make a valid one. */
export function purlText(type: string, namespace: string | undefined, name: string, version: string, qualifiers: Record<string, string>): string | null {
  try {
    return new PackageURL(type, namespace, name, version, qualifiers, undefined).toString();
  } catch {
    return null;
  }
}
