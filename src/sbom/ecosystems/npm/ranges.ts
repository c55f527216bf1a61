import type * as Semver from 'semver';
import { semver } from '../../lazy-require.js';
import type { Occurrence } from '../../model.js';
import { aliasTarget } from './common.js';

const OPTIONS = { includePrerelease: true } as const;

/** A version component as strict semver has it: no leading zero, within safe integers. */
const PART = '(0|[1-9]\\d{0,14})';
const PLAIN_VERSION = new RegExp(`^${PART}\\.${PART}\\.${PART}$`);
/** A comparator: an operator, then a full or partial version (x, X and * as wildcards), perhaps a prerelease. */
const COMPARATOR = /^(\^|~|>=|<=|>|<|=)?(?:(\*|x|X)|(0|[1-9]\d{0,14})(?:\.(\*|x|X|0|[1-9]\d{0,14})(?:\.(\*|x|X|0|[1-9]\d{0,14})(-[0-9A-Za-z.-]+)?)?)?)$/;

type Version = readonly [number, number, number];
/** A half-open interval of release versions; an upper bound of null is unbounded. */
type Interval = { readonly from: Version; readonly below: Version | null };

const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
const ANY: Interval = { from: [0, 0, 0], below: null };
const next = (v: Version, at: 0 | 1 | 2): Version => (at === 0 ? [v[0] + 1, 0, 0] : at === 1 ? [v[0], v[1] + 1, 0] : [v[0], v[1], v[2] + 1]);

/**
 * The release versions one comparator admits, as semver desugars it with prereleases included;
 * undefined for a form this does not handle. A release version stands in a prerelease bound
 * exactly as in the bound's release: above `1.2.3-beta` is `1.2.3` and up, below it `1.2.2` and down.
 */
function comparatorInterval(text: string): Interval | undefined {
  const c = COMPARATOR.exec(text);
  if (c === null) return undefined;
  const op = c[1] ?? '';
  if (c[2] !== undefined) return op === '' || op === '=' ? ANY : undefined;
  const wild = (part: string | undefined): boolean => part === undefined || part === 'x' || part === 'X' || part === '*';
  const M = Number(c[3]);
  // How many components are given: 1 (`1`, `1.x`), 2 (`1.2`, `1.2.x`) or 3; a wildcard before a number is not handled.
  const given = wild(c[4]) ? 1 : wild(c[5]) ? 2 : 3;
  if (given < 3 && c[6] !== undefined) return undefined;
  if (given === 1 && !wild(c[5]) && c[5] !== undefined) return undefined;
  const m = given >= 2 ? Number(c[4]) : 0;
  const p = given === 3 ? Number(c[5]) : 0;
  const base: Version = [M, m, p];
  const prerelease = c[6] !== undefined;
  const span = given === 1 ? 0 : given === 2 ? 1 : 2;
  switch (op) {
    case '':
    case '=':
      if (given === 3) return prerelease ? { from: base, below: base } : { from: base, below: next(base, 2) };
      return { from: base, below: next(base, span) };
    case '^': {
      // The first non-zero component of those given stays; M.m.p with M = m = 0 pins the patch.
      if (M > 0 || given === 1) return { from: base, below: next(base, 0) };
      if (m > 0 || given === 2) return { from: base, below: next(base, 1) };
      return { from: base, below: next(base, 2) };
    }
    case '~':
      return { from: base, below: next(base, given === 1 ? 0 : 1) };
    case '>=':
      return { from: base, below: null };
    case '>':
      if (given === 3) return { from: prerelease ? base : next(base, 2), below: null };
      return { from: next(base, span === 1 ? 1 : 0), below: null };
    case '<':
      return { from: [0, 0, 0], below: base };
    case '<=':
      if (given === 3) return { from: [0, 0, 0], below: prerelease ? base : next(base, 2) };
      return { from: [0, 0, 0], below: next(base, span === 1 ? 1 : 0) };
    default:
      return undefined;
  }
}

/**
 * Whether a release version `M.m.p` satisfies `range` as `semver.satisfies(version, range,
 * { includePrerelease: true })` says; undefined for a prerelease version or a range form not
 * handled here (hyphen ranges, a leading `v`, wildcards before numbers), which semver decides.
 * Nearly every edge of a lockfile is decided here: semver is then not even loaded, and its range
 * parsing had cost about 200 ms on a 2,700-entry lockfile.
 */
export function quickSatisfies(version: string, range: string): boolean | undefined {
  const v = PLAIN_VERSION.exec(version);
  if (v === null) return undefined;
  const at: Version = [Number(v[1]), Number(v[2]), Number(v[3])];
  let admitted = false;
  for (const set of range.split('||')) {
    // `>= 1.2` is `>=1.2`, as semver reads it; a hyphen range is left to semver.
    const comparators = set.trim().replace(/(\^|~|>=|<=|>|<|=)\s+/g, '$1').split(/\s+/).filter((t) => t !== '');
    if (comparators.includes('-')) return undefined;
    const intervals = comparators.length === 0 ? [ANY] : comparators.map(comparatorInterval);
    // Every set must be of a handled form: semver refuses a whole range for one bad set.
    if (intervals.some((i) => i === undefined)) return undefined;
    admitted ||= intervals.every((i) => i !== undefined && compare(at, i.from) >= 0 && (i.below === null || compare(at, i.below) < 0));
  }
  return admitted;
}

/**
 * Whether `version` satisfies `range` as `semver.satisfies(version, range, { includePrerelease:
 * true })` says, or null when either is not valid semver; each range and version semver parses,
 * it parses once.
 */
export function rangeChecker(): (version: string, range: string) => boolean | null {
  const versions = new Map<string, Semver.SemVer | null>();
  const ranges = new Map<string, Semver.Range | null>();
  const versionOf = (text: string): Semver.SemVer | null => {
    let parsed = versions.get(text);
    if (parsed === undefined) versions.set(text, (parsed = semver().parse(text)));
    return parsed;
  };
  const rangeOf = (text: string): Semver.Range | null => {
    let parsed = ranges.get(text);
    if (parsed === undefined) {
      try {
        parsed = new (semver().Range)(text, OPTIONS);
      } catch {
        parsed = null;
      }
      ranges.set(text, parsed);
    }
    return parsed;
  };
  return (version, range) => {
    const quick = quickSatisfies(version, range);
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
