import type { LockfileRecord, Occurrence, OccurrenceSource } from '../model.js';

/** What a lockfile parser returns: its occurrences (roots included) and what it noticed. */
export interface ParsedLockfile {
  readonly occurrences: Occurrence[];
  /** Refs of the project root and workspace members among `occurrences`. */
  readonly roots: string[];
  readonly notices: string[];
  readonly record: LockfileRecord;
}

export function joinPath(dir: string, rest: string): string {
  return dir === '' ? rest : `${dir}/${rest}`;
}

/** A bom-ref unique across every lockfile of one analysis: the lockfile path and the entry key. */
export function lockfileRef(lockfile: string, key: string): string {
  return `${lockfile}#${key === '' ? '.' : key}`;
}

/** The package name an install path ends in (`node_modules/@s/a/node_modules/b` → `b`). */
export function packageNameFromPath(path: string): string | null {
  const index = path.lastIndexOf('node_modules/');
  if (index === -1) return null;
  const rest = path.slice(index + 'node_modules/'.length);
  const parts = rest.split('/');
  if (parts[0]?.startsWith('@') && parts.length >= 2) return `${parts[0]}/${parts[1]}`;
  return parts[0] ?? null;
}

/** The kind of source a version specifier or resolved URL points at. */
export function classifySpec(spec: string): OccurrenceSource {
  const s = spec.trim();
  if (/^(git\+|git:|github:|gitlab:|bitbucket:|ssh:\/\/git@)/.test(s) || /\.git(#|$)/.test(s)) return 'git';
  if (s.startsWith('link:')) return 'link';
  if (s.startsWith('file:') || s.startsWith('./') || s.startsWith('../') || s.startsWith('/')) return 'file';
  if (s.startsWith('workspace:')) return 'workspace';
  if (/^https?:\/\//.test(s)) return /\/-\/[^/]+\.tgz(\?|#|$)/.test(s) ? 'registry' : 'tarball';
  // A bare "owner/repo" is GitHub shorthand.
  if (/^[\w.-]+\/[\w.-]+(#.*)?$/.test(s) && !s.startsWith('@')) return 'git';
  return 'registry';
}

export function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
