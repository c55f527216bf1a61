/**
 * Maven versions: ordering as Maven's ComparableVersion
 * (https://maven.apache.org/ref/current/maven-artifact/apidocs/org/apache/maven/artifact/versioning/ComparableVersion.html)
 * and version ranges (https://maven.apache.org/enforcer/enforcer-rules/versionRanges.html,
 * `[1.0,2.0)`, `[1.2]`, `(,1.0],[1.2,)`). A plain `1.2` is a soft requirement: a preference, used
 * as written. Simplified where the ordering's corner cases (nested lists after `-`) do not change a
 * choice between published releases.
 */

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Readonly<Record<string, string>> = { a: 'alpha', b: 'beta', m: 'milestone', cr: 'rc', ga: '', final: '', release: '' };

type Item = number | string;

function itemsOf(version: string): Item[] {
  const out: Item[] = [];
  // Bounded: a version from a repository's metadata is someone else's text.
  for (const token of version.slice(0, 256).toLowerCase().match(/\d+|[a-z]+/g) ?? []) {
    if (/^\d/.test(token)) out.push(Number(token.length > 15 ? token.slice(0, 15) : token));
    else out.push(ALIASES[token] ?? token);
  }
  // Zeros ending a numeric run and release qualifiers do not count: 1.0 == 1 == 1-final, 1.0-alpha == 1-alpha.
  return out.filter((item, i) => {
    if (item === '') return false;
    if (item !== 0) return true;
    for (let j = i + 1; j < out.length; j++) {
      const next = out[j];
      if (typeof next === 'string') return false;
      if (next !== 0) return true;
    }
    return false;
  });
}

function qualifierRank(q: string): number {
  const i = QUALIFIERS.indexOf(q);
  return i === -1 ? QUALIFIERS.length : i;
}

function compareItem(a: Item | undefined, b: Item | undefined): number {
  if (a === undefined && b === undefined) return 0;
  // A missing item is a release: more numbers are newer, a qualifier (other than sp) is older.
  if (a === undefined) return typeof b === 'number' ? -1 : qualifierRank('') - qualifierRank(b ?? '');
  if (b === undefined) return -compareItem(b, a);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return 1;
  if (typeof b === 'number') return -1;
  const ra = qualifierRank(a);
  const rb = qualifierRank(b);
  if (ra !== rb) return ra - rb;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareMavenVersions(a: string, b: string): number {
  const ia = itemsOf(a);
  const ib = itemsOf(b);
  for (let i = 0; i < Math.max(ia.length, ib.length); i++) {
    const c = compareItem(ia[i], ib[i]);
    if (c !== 0) return Math.sign(c);
  }
  return 0;
}

interface Bound {
  readonly version: string;
  readonly inclusive: boolean;
}

interface Interval {
  readonly low: Bound | null;
  readonly high: Bound | null;
}

export function isRange(spec: string): boolean {
  return spec.startsWith('[') || spec.startsWith('(');
}

/** The intervals of a range spec; null when it is not one. */
export function parseRange(spec: string): Interval[] | null {
  const out: Interval[] = [];
  for (const m of spec.replace(/\s+/g, '').matchAll(/([[(])([^\])]*)([\])])/g)) {
    const [, open = '', body = '', close = ''] = m;
    const parts = body.split(',');
    if (parts.length === 1) {
      // `[1.2]`: exactly that version.
      if (open !== '[' || close !== ']' || body === '') return null;
      out.push({ low: { version: body, inclusive: true }, high: { version: body, inclusive: true } });
    } else if (parts.length === 2) {
      const [lo = '', hi = ''] = parts;
      out.push({ low: lo === '' ? null : { version: lo, inclusive: open === '[' }, high: hi === '' ? null : { version: hi, inclusive: close === ']' } });
    } else return null;
  }
  return out.length === 0 ? null : out;
}

export function inRange(version: string, intervals: readonly Interval[]): boolean {
  return intervals.some(({ low, high }) => {
    if (low !== null) {
      const c = compareMavenVersions(version, low.version);
      if (c < 0 || (c === 0 && !low.inclusive)) return false;
    }
    if (high !== null) {
      const c = compareMavenVersions(version, high.version);
      if (c > 0 || (c === 0 && !high.inclusive)) return false;
    }
    return true;
  });
}

/** The highest release (not a -SNAPSHOT) among `versions` inside `spec`; null when none. */
export function highestInRange(spec: string, versions: readonly string[]): string | null {
  const intervals = parseRange(spec);
  if (intervals === null) return null;
  let best: string | null = null;
  for (const v of versions) {
    if (v.endsWith('-SNAPSHOT') || !inRange(v, intervals)) continue;
    if (best === null || compareMavenVersions(v, best) > 0) best = v;
  }
  return best;
}
