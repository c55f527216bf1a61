import semver from 'semver';
import type { Occurrence } from '../../model.js';
import { aliasTarget } from './common.js';

const OPTIONS = { includePrerelease: true } as const;

/**
 * Edges whose target does not satisfy the declared range (an inconsistent tree, e.g. installed
 * with --legacy-peer-deps): reported as notices, never a failure. A lockfile repeats the same
 * few ranges and versions thousands of times, so each is parsed once (parsing is most of the
 * cost of `semver.satisfies`).
 */
export function rangeMismatches(occurrences: readonly Occurrence[]): string[] {
  const byRef = new Map(occurrences.map((o) => [o.ref, o]));
  const versions = new Map<string, semver.SemVer | null>();
  const ranges = new Map<string, semver.Range | null>();
  const versionOf = (text: string): semver.SemVer | null => {
    let parsed = versions.get(text);
    if (parsed === undefined) versions.set(text, (parsed = semver.parse(text)));
    return parsed;
  };
  const rangeOf = (text: string): semver.Range | null => {
    let parsed = ranges.get(text);
    if (parsed === undefined) {
      try {
        parsed = new semver.Range(text, OPTIONS);
      } catch {
        parsed = null;
      }
      ranges.set(text, parsed);
    }
    return parsed;
  };
  const notices: string[] = [];
  for (const o of occurrences) {
    for (const edge of o.dependencies) {
      const target = byRef.get(edge.ref);
      if (edge.range === undefined || !target?.version) continue;
      const version = versionOf(target.version);
      if (version === null) continue;
      const range = aliasTarget(edge.range)?.[1] ?? edge.range;
      const parsedRange = rangeOf(range);
      if (parsedRange === null) continue;
      if (!parsedRange.test(version)) {
        const who = o.installPath === '' ? `${o.lockfile} (root)` : `${o.name}@${o.version ?? '?'}`;
        notices.push(`${who} declares ${target.name}@${range} (${edge.kind}) but the lockfile gives ${target.version}`);
      }
    }
  }
  return notices;
}
