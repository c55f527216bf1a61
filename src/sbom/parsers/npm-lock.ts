import type { Occurrence, OccurrenceSource } from '../model.js';
import { classifySpec, joinPath, lockfileRef, packageNameFromPath, type ParsedLockfile } from './common.js';

/**
 * package-lock.json and npm-shrinkwrap.json, lockfileVersion 1 (nested `dependencies`),
 * 2 and 3 (flat `packages` keyed by install path). Version 2 carries both; `packages` wins.
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

interface PackageLock {
  readonly name?: string;
  readonly version?: string;
  readonly lockfileVersion?: number;
  readonly packages?: Readonly<Record<string, V2Entry>>;
  readonly dependencies?: Readonly<Record<string, V1Entry>>;
}

export function isPackageLock(value: unknown): value is PackageLock {
  if (typeof value !== 'object' || value === null) return false;
  const lock = value as Record<string, unknown>;
  return typeof lock['lockfileVersion'] === 'number' && (isObject(lock['packages']) || isObject(lock['dependencies']));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function licenseText(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (isObject(value) && typeof value['type'] === 'string') return value['type'];
  return null;
}

function sourceOf(resolved: string | undefined, key: string, isWorkspace: boolean): OccurrenceSource {
  if (isWorkspace) return 'workspace';
  if (resolved === undefined) return key.includes('node_modules/') ? 'registry' : 'file';
  return classifySpec(resolved);
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

/** Node's module resolution over install paths: the nearest `node_modules/<name>` above `from`. */
function resolveFrom<T>(entries: ReadonlyMap<string, T>, from: string, name: string): string | null {
  for (const dir of ancestors(from)) {
    const candidate = joinPath(dir, `node_modules/${name}`);
    if (entries.has(candidate)) return candidate;
  }
  return null;
}

export function parseNpmLock(path: string, lock: PackageLock): ParsedLockfile {
  const version = lock.lockfileVersion ?? 1;
  if (isObject(lock.packages) && version >= 2) return parsePackages(path, lock, lock.packages);
  return parseV1(path, lock);
}

function parsePackages(path: string, lock: PackageLock, packages: Readonly<Record<string, V2Entry>>): ParsedLockfile {
  const entries = new Map(Object.entries(packages));
  const notices: string[] = [];
  /** A link entry (`node_modules/x` → `packages/x`) stands for its target. */
  const target = (key: string): string => {
    const entry = entries.get(key);
    if (entry?.link === true && typeof entry.resolved === 'string') return entry.resolved;
    return key;
  };
  const linkTargets = new Set<string>();
  for (const entry of entries.values()) {
    if (entry.link === true && typeof entry.resolved === 'string') linkTargets.add(entry.resolved);
  }

  const occurrences: Occurrence[] = [];
  const byKey = new Map<string, Occurrence>();
  const roots: string[] = [];
  for (const [key, entry] of entries) {
    if (entry.link === true) continue;
    const isRoot = key === '';
    const isWorkspace = !isRoot && !key.includes('node_modules/') && linkTargets.has(key);
    const installedAs = packageNameFromPath(key);
    const name = entry.name ?? installedAs ?? (isRoot ? (lock.name ?? 'root') : key);
    const facts: Record<string, string> = {};
    if (entry.inBundle === true) facts['bundled'] = 'true';
    if (entry.os) facts['os'] = entry.os.join(',');
    if (entry.cpu) facts['cpu'] = entry.cpu.join(',');
    if (entry.deprecated) facts['deprecated'] = entry.deprecated;
    const occurrence: Occurrence = {
      ref: lockfileRef(path, key),
      name,
      version: entry.version ?? (isRoot ? (lock.version ?? null) : null),
      alias: installedAs !== null && entry.name !== undefined && entry.name !== installedAs ? installedAs : null,
      installPath: key,
      lockfile: path,
      source: isRoot ? 'root' : sourceOf(entry.resolved, key, isWorkspace),
      resolved: entry.resolved ?? null,
      integrity: entry.integrity ?? null,
      dev: entry.dev === true || entry.devOptional === true,
      optional: entry.optional === true || entry.devOptional === true,
      peer: entry.peer === true,
      license: licenseText(entry.license),
      dependencies: [],
      facts,
    };
    occurrences.push(occurrence);
    byKey.set(key, occurrence);
    if (isRoot || isWorkspace) roots.push(occurrence.ref);
  }

  for (const [key, occurrence] of byKey) {
    const entry = entries.get(key) ?? {};
    const isProject = occurrence.source === 'root' || occurrence.source === 'workspace';
    const declared: [string, boolean][] = [
      ...Object.keys(entry.dependencies ?? {}).map((n): [string, boolean] => [n, false]),
      ...Object.keys(entry.optionalDependencies ?? {}).map((n): [string, boolean] => [n, true]),
      ...Object.keys(entry.peerDependencies ?? {}).map((n): [string, boolean] => [
        n,
        entry.peerDependenciesMeta?.[n]?.optional === true,
      ]),
      // devDependencies are installed only for the project itself and its workspaces.
      ...(isProject ? Object.keys(entry.devDependencies ?? {}).map((n): [string, boolean] => [n, false]) : []),
    ];
    const seen = new Set<string>();
    for (const [depName, optional] of declared) {
      if (seen.has(depName)) continue;
      seen.add(depName);
      const found = resolveFrom(entries, key, depName);
      const dependency = found === null ? undefined : byKey.get(target(found));
      if (dependency) {
        if (dependency !== occurrence) occurrence.dependencies.push(dependency.ref);
      } else if (!optional) {
        notices.push(`${path}: ${key === '' ? 'the root project' : key} requires ${depName}, which the lockfile does not contain`);
      }
    }
  }
  return {
    occurrences,
    roots,
    notices,
    record: { path, kind: 'package-lock', version: String(lock.lockfileVersion ?? 1), entries: occurrences.length - roots.length },
  };
}

/** lockfileVersion 1: a nested tree under `dependencies`; install paths are rebuilt from nesting. */
function parseV1(path: string, lock: PackageLock): ParsedLockfile {
  const entries = new Map<string, V1Entry>();
  const walk = (deps: Readonly<Record<string, V1Entry>> | undefined, parent: string): void => {
    for (const [installedAs, entry] of Object.entries(deps ?? {})) {
      const key = joinPath(parent, `node_modules/${installedAs}`);
      entries.set(key, entry);
      walk(entry.dependencies, key);
    }
  };
  walk(lock.dependencies, '');

  const root: Occurrence = {
    ref: lockfileRef(path, ''),
    name: lock.name ?? 'root',
    version: lock.version ?? null,
    alias: null,
    installPath: '',
    lockfile: path,
    source: 'root',
    resolved: null,
    integrity: null,
    dev: false,
    optional: false,
    peer: false,
    license: null,
    dependencies: [],
    facts: {},
  };
  const occurrences: Occurrence[] = [root];
  const byKey = new Map<string, Occurrence>();
  for (const [key, entry] of entries) {
    const installedAs = packageNameFromPath(key) ?? key;
    // An alias records `npm:<real>@<version>` as its version.
    const alias = /^npm:((?:@[^/@]+\/)?[^@]+)@(.+)$/.exec(entry.version ?? '');
    const facts: Record<string, string> = {};
    if (entry.bundled === true) facts['bundled'] = 'true';
    const occurrence: Occurrence = {
      ref: lockfileRef(path, key),
      name: alias?.[1] ?? installedAs,
      version: alias?.[2] ?? (entry.version !== undefined && classifySpec(entry.version) === 'registry' ? entry.version : null),
      alias: alias ? installedAs : null,
      installPath: key,
      lockfile: path,
      source: classifySpec(entry.resolved ?? (alias ? 'registry' : (entry.version ?? 'registry'))),
      resolved: entry.resolved ?? (entry.version !== undefined && classifySpec(entry.version) !== 'registry' ? entry.version : null),
      integrity: entry.integrity ?? null,
      dev: entry.dev === true,
      optional: entry.optional === true,
      peer: false,
      license: null,
      dependencies: [],
      facts,
    };
    occurrences.push(occurrence);
    byKey.set(key, occurrence);
  }
  const notices: string[] = [];
  const required = new Set<string>();
  for (const [key, occurrence] of byKey) {
    for (const depName of Object.keys(entries.get(key)?.requires ?? {})) {
      const found = resolveFrom(entries, key, depName);
      const dependency = found === null ? undefined : byKey.get(found);
      if (dependency) {
        occurrence.dependencies.push(dependency.ref);
        required.add(dependency.ref);
      } else {
        notices.push(`${path}: ${key} requires ${depName}, which the lockfile does not contain`);
      }
    }
  }
  // Version 1 does not record the root's own requirements: its direct dependencies are the
  // top-level entries nothing else requires (the manifest, when uploaded, refines this).
  for (const [key, occurrence] of byKey) {
    if (key.split('node_modules/').length === 2 && !required.has(occurrence.ref)) root.dependencies.push(occurrence.ref);
  }
  return {
    occurrences,
    roots: [root.ref],
    notices,
    record: { path, kind: 'package-lock', version: String(lock.lockfileVersion ?? 1), entries: occurrences.length - 1 },
  };
}
