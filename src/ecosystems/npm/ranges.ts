import type * as Semver from 'semver';
import { semver } from '../../model/lazy-require.js';
import type { Occurrence } from '../../model/model.js';
import { aliasTarget } from './common.js';

const OPTIONS = { includePrerelease: true } as const;

/** A version component as strict semver has it: no leading zero, within safe integers. */
const PART = '(0|[1-9]\\d{0,14})';
/** A prerelease as strict semver has it: dot-separated numbers without leading zeros, or alphanumerics with a letter or hyphen. */
const PRERELEASE = '((?:0|[1-9]\\d{0,14}|\\d*[A-Za-z-][0-9A-Za-z-]*)(?:\\.(?:0|[1-9]\\d{0,14}|\\d*[A-Za-z-][0-9A-Za-z-]*))*)';
const VERSION = new RegExp(`^${PART}\\.${PART}\\.${PART}(?:-${PRERELEASE})?$`);
const WILD = '(\\*|x|X)';
/** A comparator: an operator, then a full or partial version (x, X and * as wildcards), perhaps a prerelease. */
const COMPARATOR = new RegExp(`^(\\^|~|>=|<=|>|<|=)?(?:${WILD}|${PART}(?:\\.(?:${WILD}|${PART})(?:\\.(?:${WILD}|${PART})(?:-${PRERELEASE})?)?)?)$`);

type Identifier = number | string;
/** A version as semver compares it: major, minor, patch, then prerelease identifiers (none for a release). */
interface Version {
  readonly core: readonly [number, number, number];
  readonly pre: readonly Identifier[];
}
type Op = '<' | '<=' | '>' | '>=' | '=';
/** One of semver's desugared comparators. */
interface Bound {
  readonly op: Op;
  readonly version: Version;
}

const identifiers = (text: string | undefined): Identifier[] => (text === undefined ? [] : text.split('.').map((id) => (/^\d+$/.test(id) ? Number(id) : id)));
const version = (M: number, m: number, p: number, pre: readonly Identifier[] = []): Version => ({ core: [M, m, p], pre });
/** The lowest version of a core (`M.m.p-0`): semver's bound for x-ranges with prereleases included. */
const lowest = (M: number, m: number, p: number): Version => version(M, m, p, [0]);

function compareIdentifiers(a: Identifier, b: Identifier): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** semver's precedence: the core, then a release above its prereleases, then identifier by identifier. */
function compareVersions(a: Version, b: Version): number {
  const core = a.core[0] - b.core[0] || a.core[1] - b.core[1] || a.core[2] - b.core[2];
  if (core !== 0) return core;
  if (a.pre.length === 0 || b.pre.length === 0) return b.pre.length - a.pre.length;
  for (let i = 0; i < Math.max(a.pre.length, b.pre.length); i++) {
    const [x, y] = [a.pre[i], b.pre[i]];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const order = compareIdentifiers(x, y);
    if (order !== 0) return order;
  }
  return 0;
}

function holds(v: Version, bound: Bound): boolean {
  const order = compareVersions(v, bound.version);
  switch (bound.op) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
    case '=':
      return order === 0;
  }
}

const ANY: readonly Bound[] = [];
const NONE: readonly Bound[] = [{ op: '<', version: lowest(0, 0, 0) }];

/**
 * One comparator as semver desugars it with prereleases included (x-ranges and partial versions
 * bounded by `-0` versions, carets and tildes by their rules); undefined for a form this does not
 * handle, which semver decides.
 */
function desugar(text: string): readonly Bound[] | undefined {
  const c = COMPARATOR.exec(text);
  if (c === null) return undefined;
  const op = c[1] ?? '';
  if (c[2] !== undefined) return op === '' || op === '^' || op === '~' || op === '>=' || op === '<=' ? ANY : op === '>' || op === '<' ? NONE : undefined;
  // Groups: 3 major, 4/5 a wildcard or number minor, 6/7 the same for the patch, 8 the prerelease.
  const [minorWild, minor, patch, pre] = [c[4] !== undefined, c[5], c[7], c[8]];
  // Components given before the first wildcard; a number after one (`1.x.3`), or a prerelease of
  // a partial version, is left to semver.
  const given = minor === undefined ? 1 : patch === undefined ? 2 : 3;
  if ((minorWild && patch !== undefined) || (pre !== undefined && given < 3)) return undefined;
  const M = Number(c[3]);
  const m = given >= 2 ? Number(minor) : 0;
  const p = given === 3 ? Number(patch) : 0;
  const full = version(M, m, p, identifiers(pre));
  /** The next core up at the given precision, at its lowest version. */
  const up = (at: 1 | 2 | 3): Version => (at === 1 ? lowest(M + 1, 0, 0) : at === 2 ? lowest(M, m + 1, 0) : lowest(M, m, p + 1));
  const partialFloor = lowest(M, m, 0);
  switch (op) {
    case '':
    case '=':
      return given === 3 ? [{ op: '=', version: full }] : [{ op: '>=', version: partialFloor }, { op: '<', version: up(given) }];
    case '^': {
      const floor = given === 3 ? full : partialFloor;
      // The first non-zero of the given components stays; all given and zero pins the last.
      const ceiling = M > 0 || given === 1 ? up(1) : m > 0 || given === 2 ? up(2) : up(3);
      return [{ op: '>=', version: floor }, { op: '<', version: ceiling }];
    }
    case '~':
      return [{ op: '>=', version: given === 3 ? full : partialFloor }, { op: '<', version: up(given === 1 ? 1 : 2) }];
    case '>=':
      return [{ op: '>=', version: given === 3 ? full : partialFloor }];
    case '>':
      return [given === 3 ? { op: '>', version: full } : { op: '>=', version: up(given) }];
    case '<':
      return [{ op: '<', version: given === 3 ? full : partialFloor }];
    case '<=':
      return [given === 3 ? { op: '<=', version: full } : { op: '<', version: up(given) }];
    default:
      return undefined;
  }
}

/**
 * Whether `version` satisfies `range` as `semver.satisfies(version, range, { includePrerelease:
 * true })` says, for valid semver on both sides; undefined for what this leaves to semver (hyphen
 * ranges, a leading `v`, build metadata, anything not valid). Nearly every edge of a lockfile is
 * decided here: semver is then not even loaded, and its range parsing had cost about 200 ms on a
 * 2,700-entry lockfile.
 */
export function quickSatisfies(text: string, range: string): boolean | undefined {
  const v = VERSION.exec(text);
  if (v === null) return undefined;
  const at = version(Number(v[1]), Number(v[2]), Number(v[3]), identifiers(v[4]));
  let admitted = false;
  for (const set of range.split('||')) {
    // `>= 1.2` is `>=1.2`, as semver reads it; a hyphen range is left to semver.
    const comparators = set.trim().replace(/(\^|~|>=|<=|>|<|=)\s+/g, '$1').split(/\s+/).filter((t) => t !== '');
    if (comparators.includes('-')) return undefined;
    const bounds: Bound[] = [];
    for (const comparator of comparators) {
      const desugared = desugar(comparator);
      // Every set must be of a handled form: semver refuses a whole range for one bad set.
      if (desugared === undefined) return undefined;
      bounds.push(...desugared);
    }
    admitted ||= bounds.every((bound) => holds(at, bound));
  }
  return admitted;
}

/**
 * Whether `version` satisfies `range` as `semver.satisfies(version, range, { includePrerelease:
 * true })` says, or null when either is not valid semver; each range and version semver parses,
 * it parses once, and each pair is decided once (a monorepo's lockfile of 50,000 entries holds
 * about 200,000 edges but far fewer distinct pairs: deciding each edge anew was a tenth of its
 * analysis).
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
  const decide = (version: string, range: string): boolean | null => {
    const quick = quickSatisfies(version, range);
    if (quick !== undefined) return quick;
    const parsedVersion = versionOf(version);
    const parsedRange = rangeOf(range);
    return parsedVersion === null || parsedRange === null ? null : parsedRange.test(parsedVersion);
  };
  // By range, then version: no key string is built per edge.
  const verdicts = new Map<string, Map<string, boolean | null>>();
  return (version, range) => {
    let byVersion = verdicts.get(range);
    if (byVersion === undefined) verdicts.set(range, (byVersion = new Map<string, boolean | null>()));
    let verdict = byVersion.get(version);
    if (verdict === undefined) byVersion.set(version, (verdict = decide(version, range)));
    return verdict;
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
