import { declaredDependencies } from './manifest.js';
import type { Declaration, EdgeKind, Occurrence } from '../../model.js';
import { StructureBounds } from '../../safe-parse.js';
import { newerFormatNotice, unsupportedFormat } from '../format-version.js';
import {
  addEdge,
  aliasTarget,
  classifySpec,
  isObject,
  joinPath,
  linkedOccurrence,
  parsedLockfile,
  lockfileRef,
  occurrence,
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
 * Node's module resolution over install paths: the nearest `node_modules/<name>` above `from`.
 * Pass `dirs` (the ancestors of `from`, computed once per entry) when resolving many names.
 */
export function resolveInstallPath(entries: ReadonlyMap<string, unknown>, from: string, name: string, dirs: readonly string[] = ancestors(from)): string | null {
  for (const dir of dirs) {
    const candidate = joinPath(dir, `node_modules/${name}`);
    if (entries.has(candidate)) return candidate;
  }
  return null;
}

export function parseNpmLock(ctx: ParseContext, lock: PackageLock): ParsedLockfile {
  const version = lock.lockfileVersion ?? 1;
  // npm reads whatever it can of a lockfile of a version it does not know: so does this, saying so.
  if (!Number.isInteger(version) || version < 1) throw unsupportedFormat(ctx.path, 'package-lock.json', version);
  const parsed = isObject(lock.packages) && version >= 2 ? parsePackages(ctx, lock, lock.packages) : parseV1(ctx, lock);
  if (version > 3) parsed.notices.push(newerFormatNotice(ctx.path, 'package-lock.json', version, '3'));
  return parsed;
}

function declaredOf(entry: V2Entry, isProject: boolean): [string, string, EdgeKind][] {
  const out: [string, string, EdgeKind][] = [];
  const peerMeta = isObject(entry.peerDependenciesMeta) ? entry.peerDependenciesMeta : {};
  for (const [n, r] of Object.entries(stringRecord(entry.optionalDependencies))) out.push([n, r, 'optional']);
  for (const [n, r] of Object.entries(stringRecord(entry.dependencies))) out.push([n, r, 'prod']);
  for (const [n, r] of Object.entries(stringRecord(entry.peerDependencies))) {
    const meta = peerMeta[n];
    out.push([n, r, isObject(meta) && meta['optional'] === true ? 'peerOptional' : 'peer']);
  }
  // devDependencies are installed only for the project itself and its workspaces.
  if (isProject) for (const [n, r] of Object.entries(stringRecord(entry.devDependencies))) out.push([n, r, 'dev']);
  return out;
}

function stringList(value: unknown): string | null {
  return Array.isArray(value) ? value.filter((v) => typeof v === 'string').join(',') : null;
}

function parsePackages(ctx: ParseContext, lock: PackageLock, packages: Readonly<Record<string, V2Entry>>): ParsedLockfile {
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
  const notices: string[] = [];
  const unresolved: Declaration[] = [];
  const target = (key: string): string => {
    const entry = entries.get(key);
    return entry?.link === true && typeof entry.resolved === 'string' ? entry.resolved : key;
  };
  const linkTargets = new Set<string>();
  for (const entry of entries.values()) {
    if (entry.link === true && typeof entry.resolved === 'string') linkTargets.add(entry.resolved);
  }

  const occurrences: Occurrence[] = [];
  const byKey = new Map<string, Occurrence>();
  const roots: string[] = [];
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
      o = linkedOccurrence(ctx, key, text(entry.name), text(entry.version), 'file');
      o.dev = entry.dev === true || entry.devOptional === true;
      o.optional = entry.optional === true || entry.devOptional === true;
      covers.push({ dir: key, role: 'workspace' });
    } else if (isRoot || isWorkspace) {
      o = projectOccurrence(ctx, key, key, isRoot ? 'root' : 'workspace', text(entry.name) ?? text(lock.name) ?? (key || 'root'), text(entry.version));
      roots.push(o.ref);
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
      o = occurrence({
        ref: lockfileRef(ctx.path, key),
        name,
        version: text(entry.version),
        alias: installedAs !== null && installedAs !== name ? installedAs : null,
        installPath: key,
        lockfile: ctx.path,
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
    occurrences.push(o);
    byKey.set(key, o);
  }

  for (const [key, o] of byKey) {
    const isProject = o.source === 'root' || o.source === 'workspace';
    const declared = declaredOf(entries.get(key) ?? {}, isProject);
    bounds.edges(key, declared.length);
    const dirs = ancestors(key);
    for (const [depName, range, kind] of declared) {
      const found = resolveInstallPath(entries, key, depName, dirs);
      const dependency = found === null ? undefined : byKey.get(target(found));
      if (dependency) {
        addEdge(o, dependency, kind, range);
      } else if (kind === 'prod' || kind === 'dev') {
        if (isProject) {
          unresolved.push({
            manifest: joinPath(ctx.dir, joinPath(key, 'package.json')),
            name: depName,
            range,
            kind: kind === 'dev' ? 'devDependencies' : 'dependencies',
          });
        }
        notices.push(`${ctx.path}: ${key === '' ? 'the root project' : key} requires ${depName}, which the lockfile does not contain`);
      }
    }
  }
  return parsedLockfile(ctx.path, 'package-lock', String(lock.lockfileVersion ?? 1), { occurrences, roots, notices, covers, unresolved, scopesRecorded: true });
}

/** lockfileVersion 1: a nested tree under `dependencies`; install paths are rebuilt from nesting. */
function parseV1(ctx: ParseContext, lock: PackageLock): ParsedLockfile {
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

  const root = projectOccurrence(ctx, '', '', 'root', text(lock.name) ?? 'root', text(lock.version));
  const occurrences: Occurrence[] = [root];
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
    const o = occurrence({
      ref: lockfileRef(ctx.path, key),
      name: alias?.[0] ?? installedAs,
      version: alias?.[1] ?? (isRegistryVersion ? spec : null),
      alias: alias ? installedAs : null,
      installPath: key,
      lockfile: ctx.path,
      source: resolved !== null ? classifySpec(resolved) : alias || isRegistryVersion ? 'registry' : classifySpec(spec),
      resolved: resolved ?? (alias || isRegistryVersion ? null : spec),
      integrity: text(entry.integrity),
      dev: entry.dev === true,
      optional: entry.optional === true,
      facts,
    });
    occurrences.push(o);
    byKey.set(key, o);
  }
  const notices: string[] = [];
  const unresolved: Declaration[] = [];
  for (const [key, o] of byKey) {
    const requires = Object.entries(stringRecord(entries.get(key)?.requires));
    bounds.edges(key, requires.length);
    const dirs = ancestors(key);
    for (const [depName, range] of requires) {
      const found = resolveInstallPath(entries, key, depName, dirs);
      const dependency = found === null ? undefined : byKey.get(found);
      if (dependency) addEdge(o, dependency, 'prod', range);
      else notices.push(`${ctx.path}: ${key} requires ${depName}, which the lockfile does not contain`);
    }
  }
  const manifest = ctx.manifests.get('');
  if (manifest) {
    for (const d of declaredDependencies(manifest)) {
      const found = resolveInstallPath(entries, '', d.name);
      const dependency = found === null ? undefined : byKey.get(found);
      if (dependency) addEdge(root, dependency, d.kind, d.range);
      else if (d.kind === 'prod' || d.kind === 'dev') unresolved.push({ manifest: manifest.path, name: d.name, range: d.range, kind: d.field });
    }
  } else {
    // Version 1 does not record the root's requirements; without the manifest, the direct
    // dependencies are taken to be the top-level entries nothing else requires.
    const required = new Set(occurrences.flatMap((o) => o.dependencies.map((e) => e.ref)));
    for (const [key, o] of byKey) {
      if (key.split('node_modules/').length === 2 && !required.has(o.ref)) addEdge(root, o, o.dev ? 'dev' : 'prod');
    }
    notices.push(`${ctx.path}: lockfileVersion 1 without its package.json; the root's direct dependencies are inferred`);
  }
  return parsedLockfile(ctx.path, 'package-lock', String(lock.lockfileVersion ?? 1), { occurrences, roots: [root.ref], notices, covers: [{ dir: '', role: 'root' }], unresolved, scopesRecorded: true });
}
