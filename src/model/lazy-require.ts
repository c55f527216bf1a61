import { createRequire } from 'node:module';
import type * as Semver from 'semver';

/** `require` for CommonJS packages loaded on first use (see `lazily`). */
export const requirePackage = createRequire(import.meta.url);

/**
 * A value made on first use, synchronously, then kept: here, CommonJS packages. The parsers of
 * every ecosystem and the schema compilers are loaded this way, so a run that meets only
 * package-lock.json files never loads YAML, TOML, XML or Ajv, which took about a tenth of a warm
 * CLI run's wall time. Each package is loaded once per process and every caller gets the same
 * instance (its error classes compare with `instanceof` across callers).
 */
export function lazily<T>(load: () => T): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load());
}

/** node-semver, for the ranges the quick checks leave to it (npm/ranges.ts), yarn and Cargo. */
export const semver = lazily(() => requirePackage('semver') as typeof Semver);
