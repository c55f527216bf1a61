/**
 * NuGet's version order (https://learn.microsoft.com/nuget/concepts/package-versioning): SemVer 2
 * with a fourth "revision" number from the legacy System.Version scheme, missing parts as 0
 * (`1.0` = `1.0.0` = `1.0.0.0`), pre-release labels compared case-insensitively, build metadata
 * ignored. Leading zeros are tolerated as NuGet tolerates them (`1.01` = `1.1`).
 */
import { compareDigits, comparePrerelease } from './semver.js';

export interface NugetVersion {
  readonly numbers: readonly string[];
  readonly pre: readonly string[];
}

const NUGET = /^[vV]?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]*)?$/;

export function parseNuget(version: string): NugetVersion | null {
  if (version.length > 256) return null;
  const m = NUGET.exec(version.trim());
  if (m === null) return null;
  const numbers = [m[1], m[2], m[3], m[4]].map((n) => (n ?? '0').replace(/^0+(?=\d)/, ''));
  return { numbers, pre: m[5] === undefined ? [] : m[5].split('.') };
}

export function compareNuget(a: NugetVersion, b: NugetVersion): number {
  for (let i = 0; i < 4; i++) {
    const c = compareDigits(a.numbers[i] ?? '0', b.numbers[i] ?? '0');
    if (c !== 0) return c;
  }
  return comparePrerelease(a.pre, b.pre, true);
}
