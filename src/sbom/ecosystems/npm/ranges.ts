import semver from 'semver';
import type { Occurrence } from '../../model.js';
import { aliasTarget } from './common.js';

/**
 * Edges whose target does not satisfy the declared range (an inconsistent tree, e.g. installed
 * with --legacy-peer-deps): reported as notices, never a failure.
 */
export function rangeMismatches(occurrences: readonly Occurrence[]): string[] {
  const byRef = new Map(occurrences.map((o) => [o.ref, o]));
  const notices: string[] = [];
  for (const o of occurrences) {
    for (const edge of o.dependencies) {
      const target = byRef.get(edge.ref);
      if (edge.range === undefined || !target?.version || semver.valid(target.version) === null) continue;
      const range = aliasTarget(edge.range)?.[1] ?? edge.range;
      if (semver.validRange(range) === null) continue;
      if (!semver.satisfies(target.version, range, { includePrerelease: true })) {
        const who = o.installPath === '' ? `${o.lockfile} (root)` : `${o.name}@${o.version ?? '?'}`;
        notices.push(`${who} declares ${target.name}@${range} (${edge.kind}) but the lockfile gives ${target.version}`);
      }
    }
  }
  return notices;
}
