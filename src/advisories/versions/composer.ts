/**
 * Composer's version order: its VersionParser normalisation (`v1.2` → 1.2.0.0, stability flags
 * `alpha`/`a`, `beta`/`b`, `RC`, `patch`/`pl`/`p`, a `-dev` suffix) compared as PHP's
 * version_compare compares the normalised forms (https://getcomposer.org/doc/articles/versions.md,
 * https://www.php.net/manual/function.version-compare.php): dev < alpha < beta < RC < release <
 * patch. Branch names (`dev-main`) are no version: null.
 */
import { compareDigits } from './semver.js';

export interface ComposerVersion {
  readonly numbers: readonly string[];
  /** 0 dev, 1 alpha, 2 beta, 3 RC, 4 stable, 5 patch. */
  readonly stability: number;
  readonly stabilityNumbers: readonly string[];
  readonly dev: boolean;
}

const COMPOSER =
  /^[vV]?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(?:[._-]?(stable|beta|b|rc|alpha|a|patch|pl|p)((?:[.-]?\d+)*))?([.-]?dev)?$/i;

const RANKS: Readonly<Record<string, number>> = { alpha: 1, a: 1, beta: 2, b: 2, rc: 3, stable: 4, patch: 5, pl: 5, p: 5 };

const trimZeros = (n: string): string => n.replace(/^0+(?=\d)/, '');

export function parseComposer(version: string): ComposerVersion | null {
  if (version.length > 256) return null;
  const m = COMPOSER.exec(version.trim());
  if (m === null) return null;
  const numbers = [m[1], m[2], m[3], m[4]].map((n) => trimZeros(n ?? '0'));
  const flag = m[5]?.toLowerCase();
  return {
    numbers,
    stability: flag === undefined ? 4 : (RANKS[flag] ?? 4),
    stabilityNumbers: (m[6] ?? '').split(/[.-]/).filter((s) => s !== '').map(trimZeros),
    dev: m[7] !== undefined,
  };
}

export function compareComposer(a: ComposerVersion, b: ComposerVersion): number {
  for (let i = 0; i < 4; i++) {
    const c = compareDigits(a.numbers[i] ?? '0', b.numbers[i] ?? '0');
    if (c !== 0) return c;
  }
  // A bare `-dev` (1.0.0-dev) precedes every stability of its version; `-beta2-dev` precedes `-beta2`.
  const sa = a.dev && a.stability === 4 ? 0 : a.stability;
  const sb = b.dev && b.stability === 4 ? 0 : b.stability;
  if (sa !== sb) return sa < sb ? -1 : 1;
  for (let i = 0; i < Math.max(a.stabilityNumbers.length, b.stabilityNumbers.length); i++) {
    const c = compareDigits(a.stabilityNumbers[i] ?? '0', b.stabilityNumbers[i] ?? '0');
    if (c !== 0) return c;
  }
  return a.dev === b.dev ? 0 : a.dev ? -1 : 1;
}
