import { isUtf8 } from 'node:buffer';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { offlineEcosystems } from '../ecosystems/analysis.js';
import type { InputFile } from '../model/types.js';

const ECOSYSTEMS = offlineEcosystems();

/** Files searched for in folders: those some ecosystem claims by their name alone. */
function isKnownName(name: string): boolean {
  return ECOSYSTEMS.some((e) => e.claim({ path: name, content: '' })?.by === 'name');
}

/** Installed or tool-owned trees: never the project's own manifests, never mentioned. */
const NEVER = new Set(['node_modules', '.git', '.yarn', '.pnpm-store']);

/**
 * Folders that by convention hold test fixtures or vendored code: their lockfiles describe other
 * projects (a repository's own test fixtures can hold thousands of components), so a folder walk
 * skips them and says so; `--include` reads them.
 */
export const SKIPPED_BY_DEFAULT = [
  'fixtures',
  'fixture',
  '__fixtures__',
  'test-fixtures',
  'testdata',
  '__mocks__',
  'vendor',
  'vendored',
  'third_party',
  'third-party',
  'bower_components',
  'jspm_packages',
] as const;
const SKIPPED = new Set<string>(SKIPPED_BY_DEFAULT);

export class InputError extends Error {}

export interface InputFilters {
  /** Globs over folder-relative paths: matching files and folders are not read. */
  readonly exclude: readonly string[];
  /** Globs over folder-relative paths: matching files are read even inside a folder skipped by default. */
  readonly include: readonly string[];
}

export interface CollectedInputs {
  readonly files: InputFile[];
  /** Folders skipped by default (relative to the folder given, `/`-separated). */
  readonly skipped: string[];
}

type Matcher = (path: string) => boolean;

function matcher(globs: readonly string[]): Matcher {
  if (globs.length === 0) return () => false;
  const tests = globs.map((g) => picomatch(g, { dot: true }));
  return (path) => tests.some((t) => t(path));
}

/**
 * Whether an include glob can match something under `dir`: its literal base reaches into it, or
 * (unless `explicit`) it has no base at all (`**\/*.lock`).
 */
function includeReaches(globs: readonly string[], dir: string, explicit = false): boolean {
  return globs.some((glob) => {
    const base = picomatch.scan(glob).base;
    if (base === '') return !explicit;
    return base === dir || base.startsWith(`${dir}/`) || dir.startsWith(`${base}/`);
  });
}

class Walk {
  readonly found: string[] = [];
  /** Files found by searching a folder, not named on the command line. */
  readonly searched = new Set<string>();
  readonly skipped: string[] = [];
  private readonly excluded: Matcher;
  private readonly included: Matcher;

  constructor(private readonly filters: InputFilters) {
    this.excluded = matcher(filters.exclude);
    this.included = matcher(filters.include);
  }

  /** `rel` is the folder's path under the walked root; `defaultSkipped` once inside a fixture or vendor folder. */
  async folder(root: string, rel: string, defaultSkipped: boolean): Promise<void> {
    for (const entry of await readdir(join(root, rel), { withFileTypes: true })) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (this.excluded(path)) continue;
      if (entry.isDirectory()) {
        // Installed trees are entered only when an include glob names a path inside them.
        if (NEVER.has(entry.name)) {
          if (includeReaches(this.filters.include, path, true)) await this.folder(root, path, true);
          continue;
        }
        const skippedHere = !defaultSkipped && SKIPPED.has(entry.name);
        if (skippedHere && !includeReaches(this.filters.include, path)) {
          this.skipped.push(path);
          continue;
        }
        await this.folder(root, path, defaultSkipped || skippedHere);
      } else if (entry.isFile() && isKnownName(entry.name) && (!defaultSkipped || this.included(path))) {
        this.found.push(join(root, path));
        this.searched.add(join(root, path));
      }
    }
  }
}

/**
 * Upload paths: relative to the deepest folder holding every input, `/`-separated. Files named
 * on the command line are always read; folders are searched for known file names.
 */
export async function readInputs(paths: readonly string[], filters: InputFilters = { exclude: [], include: [] }): Promise<CollectedInputs> {
  const walk = new Walk(filters);
  for (const p of paths) {
    const path = resolve(p);
    let info;
    try {
      info = await stat(path);
    } catch {
      throw new InputError(`cannot read ${p}`);
    }
    if (info.isFile()) walk.found.push(path);
    else if (info.isDirectory()) await walk.folder(path, '', false);
  }
  const found = walk.found;
  if (found.length === 0) throw new InputError('no manifest or lockfile found in the given paths');
  const dirs = found.map((f) => resolve(f, '..'));
  let base = dirs[0] ?? process.cwd();
  while (!dirs.every((d) => d === base || d.startsWith(base + sep))) base = resolve(base, '..');
  const files: InputFile[] = [];
  for (const file of [...new Set(found)].sort()) {
    const bytes = await readFile(file);
    // A binary lockfile found in a folder (bun.lockb) is passed over; one named explicitly is refused.
    if (!isUtf8(bytes) && walk.searched.has(file)) continue;
    if (!isUtf8(bytes)) throw new InputError(`${file} is not UTF-8 text`);
    files.push({ path: relative(base, file).split(sep).join('/') || basename(file), content: bytes.toString('utf8') });
  }
  return { files, skipped: walk.skipped };
}

/** One line (at most `width` columns) naming the skipped folders, the rest counted. */
export function skippedNotice(skipped: readonly string[], width = 120): string {
  let line = `skipped ${skipped.length} fixture/vendor folder${skipped.length === 1 ? '' : 's'} (--include GLOB reads them): `;
  let shown = 0;
  for (const path of skipped) {
    const candidate = `${line}${shown === 0 ? '' : ', '}${path}`;
    const remaining = skipped.length - shown - 1;
    if (candidate.length + (remaining > 0 ? `, and ${remaining} more`.length : 0) > width) break;
    line = candidate;
    shown++;
  }
  const left = skipped.length - shown;
  return left === 0 ? line : `${line}${shown === 0 ? '' : ', '}and ${left} more`;
}
