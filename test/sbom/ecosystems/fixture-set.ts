import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { InputFile } from '../../../src/model/types.js';

/** The files of the folder `set` under `fixtures` (a test's `./fixtures/` URL) as an upload, paths relative to it. */
export function fixtureSet(fixtures: URL, set: string): InputFile[] {
  const root = join(fixtures.pathname, set);
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
  return walk(root)
    .sort()
    .map((p) => ({ path: relative(root, p), content: readFileSync(p, 'utf8') }));
}
