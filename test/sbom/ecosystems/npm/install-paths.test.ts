import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinPath } from '../../../../src/ecosystems/npm/common.js';
import { InstallPaths } from '../../../../src/ecosystems/npm/parse-npm-lock.js';

/** Node's lookup as written out: each folder from `from` up to the top, its `node_modules/<name>` tried. */
function nearest(paths: ReadonlySet<string>, from: string, name: string): string | null {
  const dirs = [from];
  for (let dir = from; dir !== ''; ) {
    const slash = dir.lastIndexOf('/');
    dir = slash === -1 ? '' : dir.slice(0, slash);
    dirs.push(dir);
  }
  for (const dir of dirs) {
    const candidate = joinPath(dir, `node_modules/${name}`);
    if (paths.has(candidate)) return candidate;
  }
  return null;
}

describe('the install paths of a package-lock', () => {
  it('resolve a name from a folder to the nearest node_modules entry', () => {
    const paths = ['node_modules/a', 'node_modules/@s/b', 'node_modules/a/node_modules/@s/b', 'packages/w/node_modules/a', 'node_modules/c/node_modules/a/node_modules/d'];
    const index = new InstallPaths(paths);
    expect(index.resolve('node_modules/a', '@s/b')).toBe('node_modules/a/node_modules/@s/b');
    expect(index.resolve('node_modules/c/node_modules/a', '@s/b')).toBe('node_modules/@s/b');
    expect(index.resolve('packages/w', 'a')).toBe('packages/w/node_modules/a');
    expect(index.resolve('packages/v', 'a')).toBe('node_modules/a');
    expect(index.resolve('node_modules/c/node_modules/a', 'd')).toBe('node_modules/c/node_modules/a/node_modules/d');
    expect(index.resolve('node_modules/c', 'd')).toBeNull();
    // A name that spells a nested path is found as the path it spells.
    expect(index.resolve('', 'a/node_modules/@s/b')).toBe('node_modules/a/node_modules/@s/b');
  });

  it('answer as the lookup written out does, for any paths, folders and names', () => {
    const segment = fc.constantFrom('node_modules', 'a', '@s', 'b', '.', '', 'packages', '..');
    const path = fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('/'));
    const name = fc.oneof(fc.constantFrom('a', 'b', '@s/b', 'a/node_modules/b'), path);
    fc.assert(
      fc.property(fc.array(path, { maxLength: 30 }), fc.oneof(path, fc.constant(''), fc.constant('.')), name, (paths, from, wanted) => {
        const set = new Set(paths);
        expect(new InstallPaths(set).resolve(from, wanted)).toBe(nearest(set, from, wanted));
      }),
      { numRuns: 5_000 },
    );
  });
});
