/**
 * `GIT` ranges: their events are commits, and whether a commit lies between two others needs the
 * repository's history, which an analysis does not fetch. The decision, stated: a component that is
 * a git dependency at a commit is affected when that exact commit is an `introduced` or
 * `last_affected` event of a `GIT` range of an entry naming it (or is listed in the entry's
 * `versions`); a commit anywhere else in the range is not found (a false negative, never a false
 * positive). Registry versions never match `GIT` ranges.
 */
import type { OsvAffected } from '../types.js';

const FULL = /(?:^|[^0-9a-f])([0-9a-f]{40})(?![0-9a-f])/gi;
const SHORT = /[#@=]([0-9a-f]{7,40})$/i;

/** The commit a git dependency is pinned at, from its version or its resolved URL; null when none is recorded. */
export function commitOf(version: string | null, resolved: string | null): string | null {
  for (const text of [resolved, version]) {
    if (text === null || text.length > 2048) continue;
    const full = [...text.matchAll(FULL)].pop()?.[1];
    if (full !== undefined) return full.toLowerCase();
  }
  if (version !== null && /^[0-9a-f]{7,40}$/i.test(version)) return version.toLowerCase();
  const short = resolved === null ? undefined : SHORT.exec(resolved)?.[1];
  return short?.toLowerCase() ?? null;
}

/** Whether two commit ids name the same commit (an abbreviated id of at least 7 digits matches its full id). */
function sameCommit(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x.length < 7 || y.length < 7) return false;
  return x.length <= y.length ? y.startsWith(x) : x.startsWith(y);
}

export function gitAffected(commit: string, entry: OsvAffected): boolean {
  for (const range of entry.ranges ?? []) {
    if (range.type !== 'GIT') continue;
    for (const e of range.events) {
      const at = e.introduced ?? e.last_affected;
      if (at !== undefined && at !== '0' && sameCommit(at, commit)) return true;
    }
  }
  return (entry.versions ?? []).some((v) => /^[0-9a-f]{7,40}$/i.test(v) && sameCommit(v, commit));
}
