/**
 * PEP 440 order (https://peps.python.org/pep-0440/#summary-of-permitted-suffixes-and-relative-ordering)
 * over versions parsed once by @renovatebot/pep440: the comparison key of packaging's Version
 * (trailing release zeros dropped, `1.0.dev0` < `1.0a0` < `1.0` < `1.0.post0`, local labels last),
 * so a `versions` list of hundreds of releases is not re-parsed per comparison.
 */
import pep440 from '@renovatebot/pep440';

type Segment = readonly [string, number] | null;

export interface Pep440Key {
  readonly epoch: number;
  readonly release: readonly number[];
  /** -Infinity for a dev release of no pre/post, Infinity for no pre-release. */
  readonly pre: readonly [number, number];
  readonly post: number;
  readonly dev: number;
  readonly local: readonly (readonly [number, string])[] | null;
}

const PRE_RANK: Readonly<Record<string, number>> = { a: 0, alpha: 0, b: 1, beta: 1, c: 2, rc: 2, pre: 2, preview: 2 };

export function parsePep440(version: string): Pep440Key | null {
  if (version.length > 256) return null;
  const p = pep440.parse(version) as { epoch: number; release: number[]; pre: Segment; post: Segment; dev: Segment; local: (string | number)[] | null } | null;
  if (p === null) return null;
  const release = [...p.release];
  while (release.length > 0 && release[release.length - 1] === 0) release.pop();
  const pre: readonly [number, number] =
    p.pre !== null ? [PRE_RANK[p.pre[0]] ?? 2, p.pre[1]] : p.post === null && p.dev !== null ? [-Infinity, 0] : [Infinity, 0];
  return {
    epoch: p.epoch,
    release,
    pre,
    post: p.post === null ? -Infinity : p.post[1],
    dev: p.dev === null ? Infinity : p.dev[1],
    local: p.local === null ? null : p.local.map((part) => (Number.isNaN(Number(part)) ? [-Infinity, String(part)] : [Number(part), ''])),
  };
}

const cmp = (a: number, b: number): number => (a < b ? -1 : a > b ? 1 : 0);

export function comparePep440(a: Pep440Key, b: Pep440Key): number {
  if (a.epoch !== b.epoch) return cmp(a.epoch, b.epoch);
  for (let i = 0; i < Math.min(a.release.length, b.release.length); i++) {
    const c = cmp(a.release[i] ?? 0, b.release[i] ?? 0);
    if (c !== 0) return c;
  }
  if (a.release.length !== b.release.length) return cmp(a.release.length, b.release.length);
  const pre = cmp(a.pre[0], b.pre[0]) || cmp(a.pre[1], b.pre[1]);
  if (pre !== 0) return pre;
  if (a.post !== b.post) return cmp(a.post, b.post);
  if (a.dev !== b.dev) return cmp(a.dev, b.dev);
  if (a.local === null || b.local === null) return a.local === b.local ? 0 : a.local === null ? -1 : 1;
  for (let i = 0; i < Math.min(a.local.length, b.local.length); i++) {
    const x = a.local[i];
    const y = b.local[i];
    if (x === undefined || y === undefined) break;
    const c = cmp(x[0], y[0]) || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0);
    if (c !== 0) return c;
  }
  return cmp(a.local.length, b.local.length);
}
