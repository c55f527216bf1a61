/**
 * SemVer 2.0.0 precedence (https://semver.org/#spec-item-11): OSV's `SEMVER` ranges, and the
 * `ECOSYSTEM` order of the registries whose versions are semantic versions (npm, crates.io, Pub,
 * Hex, SwiftURL). Build metadata is ignored, as precedence says.
 */

export interface SemVer {
  readonly numbers: readonly [string, string, string];
  /** Pre-release identifiers; empty for a release. */
  readonly pre: readonly string[];
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const MAX_LENGTH = 256;

/** The version, or null when it is not a SemVer 2 version (no leading `v`, no missing parts). */
export function parseSemver(version: string): SemVer | null {
  if (version.length > MAX_LENGTH) return null;
  const m = SEMVER.exec(version);
  if (m === null) return null;
  return { numbers: [m[1] ?? '0', m[2] ?? '0', m[3] ?? '0'], pre: m[4] === undefined ? [] : m[4].split('.') };
}

/** Decimal strings without leading zeros, compared at any length (no Number overflow). */
export function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Pre-release identifiers: numeric ones numerically and below alphanumeric ones, fewer below more. */
export function comparePrerelease(a: readonly string[], b: readonly string[], caseInsensitive = false): number {
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 0 : a.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    let x = a[i] ?? '';
    let y = b[i] ?? '';
    if (caseInsensitive) {
      x = x.toLowerCase();
      y = y.toLowerCase();
    }
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) return compareDigits(x.replace(/^0+(?=\d)/, ''), y.replace(/^0+(?=\d)/, ''));
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export function compareSemver(a: SemVer, b: SemVer): number {
  for (let i = 0; i < 3; i++) {
    const c = compareDigits(a.numbers[i] ?? '0', b.numbers[i] ?? '0');
    if (c !== 0) return c;
  }
  return comparePrerelease(a.pre, b.pre);
}
