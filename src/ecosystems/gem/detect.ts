import type { InputFile } from '../../model/types.js';
import type { Claim } from '../types.js';

/**
 * Bundler's file names are its own: `Gemfile`/`gems.rb` and their locks `Gemfile.lock`/
 * `gems.locked`, the Appraisal-style `<name>.gemfile` with `<name>.gemfile.lock`, and `*.gemspec`.
 * The name decides, whatever the content: a `Gemfile.lock` that is JSON is a malformed Bundler
 * lockfile (the build reports it), never another ecosystem's file by content.
 */
export function claimGem(file: InputFile): Claim | null {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  const lock = name === 'Gemfile.lock' || name === 'gems.locked' || /^[\w.-]+\.gemfile\.lock$/i.test(name);
  const gemfile = name === 'Gemfile' || name === 'gems.rb' || /^[\w.-]+\.gemfile$/i.test(name);
  const gemspec = /^[\w.-]+\.gemspec$/.test(name);
  if (!lock && !gemfile && !gemspec) return null;
  if (lock) return { kind: 'gemfile-lock', role: 'lockfile', by: 'name' };
  return gemfile ? { kind: 'gemfile', role: 'manifest', by: 'name' } : { kind: 'gemspec', role: 'manifest', by: 'name' };
}

/** The Gemfile a lockfile was written from: `Gemfile.lock` → `Gemfile`, `gems.locked` → `gems.rb`. */
export function manifestOfLock(lockPath: string): string {
  return lockPath.endsWith('gems.locked') ? `${lockPath.slice(0, -'gems.locked'.length)}gems.rb` : lockPath.replace(/\.lock$/, '');
}
