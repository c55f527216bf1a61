/**
 * The package's own changelog among its file paths.
 *
 * Names (case-insensitive), in order of preference: CHANGELOG (also CHANGE-LOG, CHANGE_LOG),
 * CHANGES, HISTORY, NEWS, RELEASES, RELEASE-NOTES (also RELEASE_NOTES, RELEASENOTES); extensions,
 * in order: .md, .markdown, none, .txt, .rst. The nearest to the package root wins first (a
 * single folder holding every path, like an archive's `package/` or `name-1.0/`, counts as the
 * root), then the name, then the extension, then the path itself so the answer never depends on
 * the listing's order. Paths under node_modules, vendor, vendored, third_party, bower_components,
 * jspm_packages or a dot-folder are never the package's own.
 */
import type { ChangelogFormat } from './types.js';

const NAMES: readonly RegExp[] = [/^change[-_]?log$/, /^changes$/, /^history$/, /^news$/, /^releases$/, /^release[-_]?notes$/];
const EXTENSIONS: readonly string[] = ['.md', '.markdown', '', '.txt', '.rst'];
const FOREIGN = new Set(['node_modules', 'vendor', 'vendored', 'third_party', 'third-party', 'bower_components', 'jspm_packages']);

interface Candidate {
  readonly path: string;
  readonly depth: number;
  readonly name: number;
  readonly extension: number;
}

function commonRoot(paths: readonly string[]): string | null {
  let root: string | null = null;
  for (const path of paths) {
    const slash = path.indexOf('/');
    if (slash <= 0) return null;
    const first = path.slice(0, slash);
    if (root === null) root = first;
    else if (root !== first) return null;
  }
  return root;
}

function candidate(path: string, root: string | null): Candidate | null {
  const parts = path.replace(/^\.?\//, '').split('/');
  if (root !== null) parts.shift();
  const base = parts.pop();
  if (base === undefined || parts.some((p) => FOREIGN.has(p.toLowerCase()) || p.startsWith('.'))) return null;
  const lower = base.toLowerCase();
  const extension = EXTENSIONS.findIndex((ext) => ext !== '' && lower.endsWith(ext));
  const stem = extension >= 0 ? lower.slice(0, lower.length - (EXTENSIONS[extension] ?? '').length) : lower;
  const name = NAMES.findIndex((n) => n.test(stem));
  if (name < 0) return null;
  return { path, depth: parts.length, name, extension: extension >= 0 ? extension : EXTENSIONS.indexOf('') };
}

/** The path of the package's changelog, or null when it ships none. */
export function findChangelog(paths: readonly string[]): string | null {
  const root = commonRoot(paths);
  let best: Candidate | null = null;
  for (const path of paths) {
    const c = candidate(path, root);
    if (c === null) continue;
    if (best === null || firstDifference(c, best) < 0) best = c;
  }
  return best?.path ?? null;
}

function firstDifference(a: Candidate, b: Candidate): number {
  return a.depth - b.depth || a.name - b.name || a.extension - b.extension || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/** How to read a changelog, from its name: Markdown for .md/.markdown, reStructuredText for .rst, text otherwise. */
export function changelogFormat(path: string): ChangelogFormat {
  const lower = path.toLowerCase();
  if (lower.endsWith('.md') || lower.endsWith('.markdown')) return 'markdown';
  if (lower.endsWith('.rst')) return 'rst';
  return 'text';
}
