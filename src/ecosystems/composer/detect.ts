import type { InputFile } from '../../model/types.js';
import type { Claim } from '../types.js';

/**
 * Composer's file names are its own: `composer.json` and `composer.lock` (a `COMPOSER` variable
 * may rename the manifest, e.g. `composer-dev.json` with `composer-dev.lock`, which is claimed by
 * the same pattern). The name decides: one that is not JSON is a malformed Composer file (the
 * build reports it), never another ecosystem's.
 */
const MANIFEST = /^composer(-[\w.-]+)?\.json$/;
const LOCK = /^composer(-[\w.-]+)?\.lock$/;

export function claimComposer(file: InputFile): Claim | null {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  const lock = LOCK.test(name);
  if (!lock && !MANIFEST.test(name)) return null;
  return lock ? { kind: 'composer-lock', role: 'lockfile', by: 'name' } : { kind: 'composer-json', role: 'manifest', by: 'name' };
}

/** The manifest a lock was written from: `composer.lock` → `composer.json`. */
export function manifestOfLock(lockPath: string): string {
  return lockPath.replace(/\.lock$/, '.json');
}

/**
 * Platform requirements name the runtime, never a package to install: PHP and its variants,
 * HHVM, extensions, system libraries and Composer's own APIs.
 */
export function isPlatform(name: string): boolean {
  return /^(php(-64bit|-ipv6|-zts|-debug)?|hhvm|ext-.+|lib-.+|composer(-plugin-api|-runtime-api)?)$/i.test(name);
}
