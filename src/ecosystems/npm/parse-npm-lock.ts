import { declaredDependencies } from './manifest.js';
import type { EdgeKind, Occurrence } from '../../model/model.js';
import { StructureBounds } from '../../model/safe-parse.js';
import type { GraphBuilder } from '../shared/builder.js';
import { newerFormatNotice, unsupportedFormat } from '../shared/format-version.js';
import {
  aliasTarget,
  classifySpec,
  isObject,
  joinPath,
  linkedOccurrence,
  npmGraph,
  packageNameFromPath,
  projectOccurrence,
  stringRecord,
  text,
  type Coverage,
  type ParseContext,
  type ParsedLockfile,
} from './common.js';

/**
 * package-lock.json and npm-shrinkwrap.json, lockfileVersion 1 (nested `dependencies`),
 * 2 and 3 (flat `packages` keyed by install path; 2 also carries the v1 tree, `packages` wins).
 * npm records dev/optional/peer flags itself, so they are taken as written.
 */

interface V2Entry {
  readonly name?: string;
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly link?: boolean;
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly devOptional?: boolean;
  readonly peer?: boolean;
  readonly inBundle?: boolean;
  readonly license?: unknown;
  readonly deprecated?: string;
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { optional?: boolean }>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
}

interface V1Entry {
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly bundled?: boolean;
  readonly requires?: Readonly<Record<string, string>>;
  readonly dependencies?: Readonly<Record<string, V1Entry>>;
}

export interface PackageLock {
  readonly name?: string;
  readonly version?: string;
  readonly lockfileVersion?: number;
  readonly packages?: Readonly<Record<string, V2Entry>>;
  readonly dependencies?: Readonly<Record<string, V1Entry>>;
}

export function isPackageLock(value: unknown): value is PackageLock {
  return isObject(value) && typeof value['lockfileVersion'] === 'number' && (isObject(value['packages']) || isObject(value['dependencies']));
}

function licenseText(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (isObject(value) && typeof value['type'] === 'string') return value['type'];
  return null;
}

/** Every directory from `dir` up to the root (''), nearest first. */
function ancestors(dir: string): string[] {
  const result = [dir];
  let current = dir;
  while (current !== '') {
    const slash = current.lastIndexOf('/');
    current = slash === -1 ? '' : current.slice(0, slash);
    result.push(current);
  }
  return result;
}

/**
 * Node's module resolution over install paths: the nearest `node_modules/<name>` above a folder.
 * The install paths are indexed by name, then by the folder holding them, so that a lookup tries
 * each folder without building its candidate path (building and hashing those strings was most
 * of the edges' cost in a lockfile of 50,000 entries). A path is indexed at every
 * `node_modules/` in it, so a name that itself holds one is found as the path it spells.
 */
export class InstallPaths {
  private readonly byName = new Map<string, Map<string, string>>();

  constructor(paths: Iterable<string>) {
    for (const path of paths) {
      for (let at = path.indexOf('node_modules/'); at !== -1; at = path.indexOf('node_modules/', at + 1)) {
        // `<dir>/node_modules/<name>`, or `node_modules/<name>` for the top ('' and '.' alike).
        const dir = at === 0 ? '' : at >= 2 && path.charCodeAt(at - 1) === 47 /* / */ ? path.slice(0, at - 1) : null;
        if (dir === null || dir === '.') continue;
        const name = path.slice(at + 'node_modules/'.length);
        let dirs = this.byName.get(name);
        if (dirs === undefined) this.byName.set(name, (dirs = new Map<string, string>()));
        dirs.set(dir, path);
      }
    }
  }

  /** Pass `dirs` (the ancestors of `from`, computed once per entry) when resolving many names. */
  resolve(from: string, name: string, dirs: readonly string[] = ancestors(from)): string | null {
    const at = this.byName.get(name);
    if (at === undefined) return null;
    for (const dir of dirs) {
      const path = at.get(dir === '.' ? '' : dir);
      if (path !== undefined) return path;
    }
    return null;
  }
}

export function parseNpmLock(ctx: ParseContext, lock: PackageLock): ParsedLockfile {
  const version = lock.lockfileVersion ?? 1;
  // npm reads whatever it can of a lockfile of a version it does not know: so does this, saying so.
  if (!Number.isInteger(version) || version < 1) throw unsupportedFormat(ctx.path, 'package-lock.json', version);
  const graph = npmGraph(ctx);
  const covers = isObject(lock.packages) && version >= 2 ? parsePackages(graph, ctx, lock, lock.packages) : parseV1(graph, ctx, lock);
  if (version > 3) graph.notice(newerFormatNotice(ctx.path, 'package-lock.json', version, '3'));
  // npm records dev/optional/peer itself: the scopes are taken as written.
  return { inventory: graph.finish({ kind: 'package-lock', version: String(lock.lockfileVersion ?? 1), scopes: 'recorded' }), covers };
}

/** `[name, range, kind]` for each string (or number) member of a record, as `stringRecord` reads one. */
function pushDeclared(out: [string, string, EdgeKind][], record: unknown, kind: EdgeKind, peerMeta?: Readonly<Record<string, unknown>>): void {
  if (!isObject(record)) return;
  for (const [name, value] of Object.entries(record)) {
    // stringRecord's assignment of `__proto__` sets no member: that name was never an edge.
    if (name === '__proto__' || (typeof value !== 'string' && typeof value !== 'number')) continue;
    const meta = peerMeta?.[name];
    out.push([name, String(value), peerMeta !== undefined && isObject(meta) && meta['optional'] === true ? 'peerOptional' : kind]);
  }
}

function declaredOf(entry: V2Entry, isProject: boolean): [string, string, EdgeKind][] {
  const out: [string, string, EdgeKind][] = [];
  pushDeclared(out, entry.optionalDependencies, 'optional');
  pushDeclared(out, entry.dependencies, 'prod');
  pushDeclared(out, entry.peerDependencies, 'peer', isObject(entry.peerDependenciesMeta) ? entry.peerDependenciesMeta : {});
  // devDependencies are installed only for the project itself and its workspaces.
  if (isProject) pushDeclared(out, entry.devDependencies, 'dev');
  return out;
}

function stringList(value: unknown): string | null {
  return Array.isArray(value) ? value.filter((v) => typeof v === 'string').join(',') : null;
}

/** The entries of `packages` (versions 2 and 3) into `graph`; answers the manifest folders covered. */
function parsePackages(graph: GraphBuilder, ctx: ParseContext, lock: PackageLock, packages: Readonly<Record<string, V2Entry>>): Coverage[] {
  const bounds = new StructureBounds(ctx.path);
  const entries = new Map<string, V2Entry>();
  const keys = Object.keys(packages);
  bounds.entries(keys.length);
  for (const key of keys) {
    const entry: unknown = packages[key];
    // An entry that is not an object records nothing usable; it is left out like a missing one.
    if (!isObject(entry)) continue;
    bounds.key(key);
    entries.set(key, entry);
  }
  const target = (key: string): string => {
    const entry = entries.get(key);
    return entry?.link === true && typeof entry.resolved === 'string' ? entry.resolved : key;
  };
  const installed = new InstallPaths(entries.keys());
  const linkTargets = new Set<string>();
  for (const entry of entries.values()) {
    if (entry.link === true && typeof entry.resolved === 'string') linkTargets.add(entry.resolved);
  }

  // By entry key: a linked folder outside the lockfile's is the builder's `file:<key>`.
  const byKey = new Map<string, Occurrence>();
  const covers: Coverage[] = [];
  for (const [key, entry] of entries) {
    if (entry.link === true) continue;
    const isRoot = key === '';
    // A `file:` link to a folder outside the lockfile's (`../deps/x`) is a dependency, not a workspace.
    const outside = key.startsWith('../') || key.startsWith('/');
    const isWorkspace = !isRoot && !key.includes('node_modules/') && linkTargets.has(key) && !outside;
    const installedAs = packageNameFromPath(key);
    let o: Occurrence;
    if (outside && !key.includes('node_modules/')) {
      o = linkedOccurrence(graph, ctx, key, text(entry.name), text(entry.version), 'file');
      o.dev = entry.dev === true || entry.devOptional === true;
      o.optional = entry.optional === true || entry.devOptional === true;
      covers.push({ dir: key, role: 'workspace' });
    } else if (isRoot || isWorkspace) {
      o = projectOccurrence(graph, ctx, key, key, isRoot ? 'root' : 'workspace', text(entry.name) ?? text(lock.name) ?? (key || 'root'), text(entry.version));
      covers.push({ dir: key, role: isRoot ? 'root' : 'workspace' });
    } else {
      const facts: Record<string, string> = {};
      if (entry.inBundle === true) facts['bundled'] = 'true';
      const os = stringList(entry.os);
      const cpu = stringList(entry.cpu);
      if (os !== null) facts['os'] = os;
      if (cpu !== null) facts['cpu'] = cpu;
      const deprecated = text(entry.deprecated);
      if (deprecated !== null) facts['deprecated'] = deprecated;
      const name = text(entry.name) ?? installedAs ?? key;
      const resolved = text(entry.resolved);
      o = graph.add(key, {
        name,
        version: text(entry.version),
        alias: installedAs !== null && installedAs !== name ? installedAs : null,
        source: resolved === null ? (key.includes('node_modules/') ? 'registry' : 'file') : classifySpec(resolved),
        resolved,
        integrity: text(entry.integrity),
        dev: entry.dev === true || entry.devOptional === true,
        optional: entry.optional === true || entry.devOptional === true,
        peer: entry.peer === true,
        license: licenseText(entry.license),
        facts,
      });
    }
    byKey.set(key, o);
  }

  for (const [key, o] of byKey) {
    const isProject = o.source === 'root' || o.source === 'workspace';
    const declared = declaredOf(entries.get(key) ?? {}, isProject);
    bounds.edges(key, declared.length);
    const dirs = ancestors(key);
    for (const [depName, range, kind] of declared) {
      const found = installed.resolve(key, depName, dirs);
      const dependency = found === null ? undefined : byKey.get(target(found));
      if (dependency) {
        graph.edge(o, dependency, kind, range);
      } else if (kind === 'prod' || kind === 'dev') {
        if (isProject) {
          graph.unresolved({
            manifest: joinPath(ctx.dir, joinPath(key, 'package.json')),
            name: depName,
            range,
            kind: kind === 'dev' ? 'devDependencies' : 'dependencies',
          });
        }
        graph.notice(`${ctx.path}: ${key === '' ? 'the root project' : key} requires ${depName}, which the lockfile does not contain`);
      }
    }
  }
  return covers;
}

/** lockfileVersion 1: a nested tree under `dependencies`; install paths are rebuilt from nesting. */
function parseV1(graph: GraphBuilder, ctx: ParseContext, lock: PackageLock): Coverage[] {
  const bounds = new StructureBounds(ctx.path);
  const entries = new Map<string, V1Entry>();
  // An explicit stack, not recursion: nesting is bounded by the depth check, but this costs nothing.
  const pending: [unknown, string][] = [[lock.dependencies, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [deps, parent] = next;
    if (!isObject(deps)) continue;
    for (const [installedAs, entry] of Object.entries(deps)) {
      if (!isObject(entry)) continue;
      const key = joinPath(parent, `node_modules/${installedAs}`);
      bounds.key(key);
      entries.set(key, entry);
      bounds.entries(entries.size);
      pending.push([entry['dependencies'], key]);
    }
  }

  const installed = new InstallPaths(entries.keys());
  const root = projectOccurrence(graph, ctx, '', '', 'root', text(lock.name) ?? 'root', text(lock.version));
  const byKey = new Map<string, Occurrence>();
  for (const [key, entry] of entries) {
    const installedAs = packageNameFromPath(key) ?? key;
    // An alias records `npm:<real>@<version>` as its version; git and file deps record their spec.
    const spec = text(entry.version) ?? '';
    const alias = aliasTarget(spec);
    const resolved = text(entry.resolved);
    const isRegistryVersion = alias === null && classifySpec(spec) === 'registry';
    const facts: Record<string, string> = {};
    if (entry.bundled === true) facts['bundled'] = 'true';
    const o = graph.add(key, {
      name: alias?.[0] ?? installedAs,
      version: alias?.[1] ?? (isRegistryVersion ? spec : null),
      alias: alias ? installedAs : null,
      source: resolved !== null ? classifySpec(resolved) : alias || isRegistryVersion ? 'registry' : classifySpec(spec),
      resolved: resolved ?? (alias || isRegistryVersion ? null : spec),
      integrity: text(entry.integrity),
      dev: entry.dev === true,
      optional: entry.optional === true,
      facts,
    });
    byKey.set(key, o);
  }
  for (const [key, o] of byKey) {
    const requires = Object.entries(stringRecord(entries.get(key)?.requires));
    bounds.edges(key, requires.length);
    const dirs = ancestors(key);
    for (const [depName, range] of requires) {
      const found = installed.resolve(key, depName, dirs);
      const dependency = found === null ? undefined : byKey.get(found);
      if (dependency) graph.edge(o, dependency, 'prod', range);
      else graph.notice(`${ctx.path}: ${key} requires ${depName}, which the lockfile does not contain`);
    }
  }
  const manifest = ctx.manifests.get('');
  if (manifest) {
    for (const d of declaredDependencies(manifest)) {
      const found = installed.resolve('', d.name);
      const dependency = found === null ? undefined : byKey.get(found);
      if (dependency) graph.edge(root, dependency, d.kind, d.range);
      else if (d.kind === 'prod' || d.kind === 'dev') graph.unresolved({ manifest: manifest.path, name: d.name, range: d.range, kind: d.field });
    }
  } else {
    // Version 1 does not record the root's requirements; without the manifest, the direct
    // dependencies are taken to be the top-level entries nothing else requires.
    const required = new Set(graph.occurrences.flatMap((o) => o.dependencies.map((e) => e.ref)));
    for (const [key, o] of byKey) {
      if (key.split('node_modules/').length === 2 && !required.has(o.ref)) graph.edge(root, o, o.dev ? 'dev' : 'prod');
    }
    graph.notice(`${ctx.path}: lockfileVersion 1 without its package.json; the root's direct dependencies are inferred`);
  }
  return [{ dir: '', role: 'root' }];
}
