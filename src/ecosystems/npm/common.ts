import { declaredDependencies, type Manifest } from './manifest.js';
import type { Declaration, Inventory, Occurrence, OccurrenceSource } from '../../model/model.js';
import { GraphBuilder } from '../shared/builder.js';
import { isRecord as isObject } from '../shared/narrow.js';

/** What a parser is given: the lockfile and the uploaded manifests of its folder and below. */
export interface ParseContext {
  /** Upload path of the lockfile. */
  readonly path: string;
  /** Its folder ('' at the top of the upload). */
  readonly dir: string;
  /** Uploaded manifests under `dir`, keyed by their folder relative to `dir` ('' is the root). */
  readonly manifests: ReadonlyMap<string, Manifest>;
  /** Every uploaded manifest by its upload path: what names a linked folder outside `dir`. */
  readonly uploaded?: ReadonlyMap<string, Manifest>;
}

/** A manifest folder the lockfile covers, relative to the lockfile's folder. */
export interface Coverage {
  readonly dir: string;
  readonly role: 'root' | 'workspace';
}

/**
 * What a lockfile parser returns: the file's inventory as its `GraphBuilder` finished it (scopes
 * settled, the lockfile recorded, requirements it has no entry for kept as declarations), and the
 * manifest folders it covers, which the analysis associates across lockfiles.
 */
export interface ParsedLockfile {
  readonly inventory: Inventory;
  readonly covers: Coverage[];
}

/** The graph builder of one npm lockfile (or of a manifest resolved as npm would write one). */
export function npmGraph(ctx: ParseContext): GraphBuilder {
  return new GraphBuilder(ctx.path, 'npm');
}

export function joinPath(dir: string, rest: string): string {
  if (dir === '' || dir === '.') return rest;
  if (rest === '' || rest === '.') return dir;
  return `${dir}/${rest}`;
}

export function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Normalises `./a/../b` style relative paths; null when they leave the top. */
export function normalizeRelative(path: string): string | null {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(part);
  }
  return out.join('/');
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

/** `name@range` → [name, range], scoped names included; the range may be empty. */
export function splitDescriptor(descriptor: string): [string, string] {
  const at = descriptor.indexOf('@', descriptor.startsWith('@') ? 1 : 0);
  return at === -1 ? [descriptor, ''] : [descriptor.slice(0, at), descriptor.slice(at + 1)];
}

/** `npm:real@range` (an alias specifier) → [real, range]; null for anything else. */
export function aliasTarget(spec: string): [string, string] | null {
  if (!spec.startsWith('npm:')) return null;
  const [name, range] = splitDescriptor(spec.slice(4));
  return name === '' ? null : [name, range];
}

/** The kind of source a version specifier or resolved URL points at. */
export function classifySpec(spec: string): OccurrenceSource {
  const s = spec.trim();
  if (/^(git\+|git:|github:|gitlab:|bitbucket:|ssh:\/\/git@)/.test(s) || /\.git(#|$)/.test(s)) return 'git';
  if (s.startsWith('link:') || s.startsWith('portal:')) return 'link';
  if (s.startsWith('file:') || s.startsWith('./') || s.startsWith('../') || s.startsWith('/')) return 'file';
  if (s.startsWith('workspace:')) return 'workspace';
  if (/^https?:\/\//.test(s)) return /\/-\/[^/]+\.tgz(\?|#|$)/.test(s) ? 'registry' : 'tarball';
  // A bare "owner/repo" is GitHub shorthand.
  if (/^[\w.-]+\/[\w.-]+(#.*)?$/.test(s) && !s.startsWith('@')) return 'git';
  return 'registry';
}

/** A project root or workspace member, from its manifest when uploaded. */
export function projectOccurrence(
  graph: GraphBuilder,
  ctx: ParseContext,
  key: string,
  relDir: string,
  source: 'root' | 'workspace',
  fallbackName: string,
  fallbackVersion: string | null = null,
): Occurrence {
  const manifest = ctx.manifests.get(relDir);
  return graph.root(key, {
    name: manifest?.name ?? fallbackName,
    version: manifest?.version ?? fallbackVersion,
    source,
    license: manifest?.license ?? null,
  });
}

/**
 * A folder a `file:`/`link:` dependency points at that is no project of the lockfile (outside its
 * folder, or not one of its importers): a dependency, named by its own package.json when uploaded,
 * else by what the lockfile records, else by the folder's name; never a root, its devDependencies
 * never the project's. `target` is relative to the lockfile's folder.
 */
export function linkedOccurrence(
  graph: GraphBuilder,
  ctx: ParseContext,
  target: string,
  recordedName: string | null,
  recordedVersion: string | null,
  source: 'file' | 'link',
): Occurrence {
  const folder = normalizeRelative(joinPath(ctx.dir, target));
  const manifest = folder === null ? undefined : ctx.uploaded?.get(joinPath(folder, 'package.json'));
  const key = `${source}:${target}`;
  return graph.add(key, {
    name: manifest?.name ?? recordedName ?? basename(target.replace(/\/+$/, '')),
    version: manifest?.version ?? recordedVersion,
    installPath: target,
    source,
    resolved: key,
    license: manifest?.license ?? null,
  });
}

/** A string field of untrusted data, or null: parsers never pass a number or object on as text. */
export { stringOrNull as text } from '../shared/narrow.js';

export { isObject };

export function stringRecord(value: unknown): Record<string, string> {
  if (!isObject(value)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number') out[k] = String(v);
  }
  return out;
}

/**
 * What a covered manifest requires (prod and dev) that the lockfile holds no entry for: the
 * requirements kept as declarations. `has` says whether the lockfile resolves one.
 */
export function missingRequirements(manifest: Manifest, has: (name: string, range: string) => boolean): Declaration[] {
  return declaredDependencies(manifest)
    .filter((d) => (d.kind === 'prod' || d.kind === 'dev') && !has(d.name, d.range))
    .map((d) => ({ manifest: manifest.path, name: d.name, range: d.range, kind: d.field }));
}
