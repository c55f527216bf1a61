/**
 * Entries between two versions by the ecosystem's own version order, and which versions of a
 * registry's list had no entry. Versions are normalised before the order sees them (`v1.2.3` and
 * `V1.2.3` read as `1.2.3`, `=1.2.3` as `1.2.3`); the order itself decides equality, so PEP 440
 * spellings (`1.0.0rc1`, `1.0.0-rc.1`, `1.0rc1`) match when the PEP 440 order is passed. An entry
 * whose version the order cannot read (it throws or answers NaN) is left out, never guessed.
 */
import type { ChangelogEntry, VersionOrder } from './types.js';

/** A version as a changelog or registry writes it, without decorations no ecosystem keeps. */
export function normalizeVersion(version: string): string {
  return version.trim().replace(/^=+/, '').replace(/^[vV](?=\d)/, '');
}

function compare(order: VersionOrder, a: string, b: string): number | null {
  try {
    const n = order(normalizeVersion(a), normalizeVersion(b));
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

function inRange(order: VersionOrder, version: string, from: string | null, to: string): boolean {
  if (from !== null) {
    const low = compare(order, from, version);
    if (low === null || low >= 0) return false;
  }
  const high = compare(order, version, to);
  return high !== null && high <= 0;
}

/**
 * The entries with from < version <= to (no lower bound when `from` is null), newest first by the
 * order; when a version has two entries, the first in the file is kept. O(n log n) comparisons.
 */
export function entriesBetween(entries: readonly ChangelogEntry[], from: string | null, to: string, order: VersionOrder): ChangelogEntry[] {
  const inside = entries.filter((entry) => inRange(order, entry.version, from, to));
  // A stable sort keeps file order among equal versions, so the first of a run is the file's first.
  const sorted = inside.sort((a, b) => -(compare(order, a.version, b.version) ?? 0));
  return sorted.filter((entry, i) => i === 0 || compare(order, sorted[i - 1]?.version ?? '', entry.version) !== 0);
}

export interface ChangelogCoverage {
  /** The versions of the list in from < version <= to, newest first. */
  readonly versions: readonly string[];
  /** Those of them no entry describes. */
  readonly missing: readonly string[];
}

/**
 * Which versions of `versions` (a registry's list) between from and to have no changelog entry.
 * Entries are sorted once and each version is looked up by binary search: O((n + m) log n).
 */
export function changelogCoverage(
  entries: readonly ChangelogEntry[],
  versions: readonly string[],
  from: string | null,
  to: string,
  order: VersionOrder,
): ChangelogCoverage {
  const known = entries
    .map((e) => e.version)
    .filter((v) => compare(order, v, v) === 0)
    .sort((a, b) => compare(order, a, b) ?? 0);
  const has = (version: string): boolean => {
    let lo = 0;
    let hi = known.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = compare(order, known[mid] ?? '', version);
      if (c === null) return false;
      if (c === 0) return true;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  };
  const between = versions.filter((v) => inRange(order, v, from, to)).sort((a, b) => -(compare(order, a, b) ?? 0));
  return { versions: between, missing: between.filter((v) => !has(v)) };
}
