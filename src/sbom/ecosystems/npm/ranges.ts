import semver from 'semver';
import type { Occurrence } from '../../model.js';
import { aliasTarget } from './common.js';

const OPTIONS = { includePrerelease: true } as const;

/** A version component as strict semver has it: no leading zero, within safe integers. */
const PART = '(0|[1-9]\\d{0,14})';
const PLAIN_VERSION = new RegExp(`^${PART}\\.${PART}\\.${PART}$`);
const SIMPLE_RANGE = new RegExp(`^([\\^~]?)${PART}\\.${PART}\\.${PART}$`);

/**
 * `^M.m.p`, `~M.m.p` or `M.m.p` against a release version, as semver decides it (with
 * prereleases included, which a release version makes moot); undefined for any other form.
 * Most edges of a lockfile have one of these forms, and this spares semver's range parsing,
 * which cost about 200 ms on a 2,700-entry lockfile even with each range parsed once.
 */
function simpleSatisfies(version: string, range: string): boolean | undefined {
  const v = PLAIN_VERSION.exec(version);
  const r = SIMPLE_RANGE.exec(range);
  if (v === null || r === null) return undefined;
  const [vM, vm, vp] = [Number(v[1]), Number(v[2]), Number(v[3])];
  const [op, M, m, p] = [r[1], Number(r[2]), Number(r[3]), Number(r[4])];
  if (op === '') return vM === M && vm === m && vp === p;
  if (op === '~' || M === 0) {
    // ~M.m.p and ^0.m.p (m > 0): same major and minor, patch at least p; ^0.0.p: exactly 0.0.p.
    if (op === '^' && m === 0) return vM === 0 && vm === 0 && vp === p;
    return vM === M && vm === m && vp >= p;
  }
  return vM === M && (vm > m || (vm === m && vp >= p));
}

/**
 * Whether `version` satisfies `range` as `semver.satisfies(version, range, { includePrerelease:
 * true })` says, or null when either is not valid semver; each range and version is parsed once.
 */
export function rangeChecker(): (version: string, range: string) => boolean | null {
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
  return (version, range) => {
    const quick = simpleSatisfies(version, range);
    if (quick !== undefined) return quick;
    const parsedVersion = versionOf(version);
    const parsedRange = rangeOf(range);
    return parsedVersion === null || parsedRange === null ? null : parsedRange.test(parsedVersion);
  };
}

/**
 * Edges whose target does not satisfy the declared range (an inconsistent tree, e.g. installed
 * with --legacy-peer-deps): reported as notices, never a failure.
 */
export function rangeMismatches(occurrences: readonly Occurrence[]): string[] {
  const byRef = new Map(occurrences.map((o) => [o.ref, o]));
  const satisfies = rangeChecker();
  const notices: string[] = [];
  for (const o of occurrences) {
    for (const edge of o.dependencies) {
      const target = byRef.get(edge.ref);
      if (edge.range === undefined || !target?.version) continue;
      const range = aliasTarget(edge.range)?.[1] ?? edge.range;
      if (satisfies(target.version, range) === false) {
        const who = o.installPath === '' ? `${o.lockfile} (root)` : `${o.name}@${o.version ?? '?'}`;
        notices.push(`${who} declares ${target.name}@${range} (${edge.kind}) but the lockfile gives ${target.version}`);
      }
    }
  }
  return notices;
}
