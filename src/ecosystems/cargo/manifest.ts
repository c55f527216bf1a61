import { posix } from 'node:path';
import type { Declaration, EdgeKind } from '../../model/model.js';
import type { FileProblem } from '../types.js';
import { entries, own, readToml, table, text, textList, type TomlDoc } from './toml.js';

/**
 * `Cargo.toml`: the package, its dependency tables (plain, dev, build, per target), features and
 * the `[workspace]` that members inherit from. Declarations and the scope of each direct
 * dependency come from here; the resolved versions come from Cargo.lock.
 */

export type DependencySection = 'dependencies' | 'dev-dependencies' | 'build-dependencies';

export interface CargoDependency {
  /** The key in the manifest (the name the code uses; differs from `name` when renamed). */
  readonly key: string;
  /** The crate's real name (`package = "…"` when renamed). */
  readonly name: string;
  readonly section: DependencySection;
  /** `cfg(unix)` or a target triple, for `[target.<x>.dependencies]`; null otherwise. */
  readonly target: string | null;
  /** The version requirement as written; empty when none was given. */
  readonly req: string;
  readonly optional: boolean;
  /** A `path = "…"` dependency, resolved against the manifest's folder (upload-relative). */
  readonly path: string | null;
  /** A git dependency: its URL with the branch, tag or rev it asks for. */
  readonly git: string | null;
  /** `workspace = true`: version, path and git come from the root's `[workspace.dependencies]`. */
  readonly inherited: boolean;
  /** Features asked of the dependency, and whether its default features stay on. */
  readonly features: readonly string[];
  readonly defaultFeatures: boolean;
}

export interface CargoWorkspace {
  readonly members: readonly string[];
  readonly exclude: readonly string[];
  readonly defaultMembers: readonly string[];
  /** `[workspace.dependencies]`, by key. */
  readonly dependencies: ReadonlyMap<string, CargoDependency>;
  /** `[workspace.package] version`, which members inherit with `version.workspace = true`. */
  readonly version: string | null;
  /** `[workspace.package] license`, inherited with `license.workspace = true`. */
  readonly license: string | null;
}

/** A field of `[package]` as written, or inherited from `[workspace.package]` (`x.workspace = true`). */
export interface PackageField {
  readonly value: string | null;
  readonly inherited: boolean;
}

export interface CargoManifest {
  readonly path: string;
  /** Folder of the manifest in the upload ('' for the top). */
  readonly dir: string;
  readonly package: { readonly name: string; readonly version: PackageField; readonly license: PackageField } | null;
  readonly workspace: CargoWorkspace | null;
  readonly dependencies: readonly CargoDependency[];
  readonly features: ReadonlyMap<string, readonly string[]>;
}

const SECTIONS: readonly [string, DependencySection][] = [
  ['dependencies', 'dependencies'],
  ['dev-dependencies', 'dev-dependencies'],
  // Cargo still accepts the old underscore spellings.
  ['dev_dependencies', 'dev-dependencies'],
  ['build-dependencies', 'build-dependencies'],
  ['build_dependencies', 'build-dependencies'],
];

export function dirOf(path: string): string {
  const dir = posix.dirname(path);
  return dir === '.' ? '' : dir;
}

/** `base/rel`, normalised, upload-relative (may start with `..` when it leaves the upload). */
export function joinDir(base: string, rel: string): string {
  const joined = posix.normalize(posix.join(base === '' ? '.' : base, rel)).replace(/\/+$/, '');
  return joined === '.' ? '' : joined;
}

function gitSpec(spec: TomlDoc): string | null {
  const url = text(own(spec, 'git'));
  if (url === null) return null;
  for (const ref of ['rev', 'tag', 'branch'] as const) {
    const value = text(own(spec, ref));
    if (value !== null) return `git+${url}?${ref}=${encodeURIComponent(value)}`;
  }
  return `git+${url}`;
}

function dependency(dir: string, key: string, value: unknown, section: DependencySection, target: string | null): CargoDependency | null {
  const req = text(value);
  if (req !== null) return { key, name: key, section, target, req, optional: false, path: null, git: null, inherited: false, features: [], defaultFeatures: true };
  const spec = table(value);
  if (spec === null) return null;
  const path = text(own(spec, 'path'));
  return {
    key,
    name: text(own(spec, 'package')) ?? key,
    section,
    target,
    req: text(own(spec, 'version')) ?? '',
    optional: own(spec, 'optional') === true,
    path: path === null ? null : joinDir(dir, path),
    git: gitSpec(spec),
    inherited: own(spec, 'workspace') === true,
    features: textList(own(spec, 'features')),
    defaultFeatures: own(spec, 'default-features') !== false && own(spec, 'default_features') !== false,
  };
}

function dependencyTables(dir: string, holder: TomlDoc | null, target: string | null, into: CargoDependency[]): void {
  for (const [field, section] of SECTIONS) {
    for (const [key, value] of entries(own(holder, field))) {
      const dep = dependency(dir, key, value, section, target);
      if (dep !== null) into.push(dep);
    }
  }
}

function workspaceOf(dir: string, doc: TomlDoc): CargoWorkspace | null {
  const ws = table(own(doc, 'workspace'));
  if (ws === null) return null;
  const dependencies = new Map<string, CargoDependency>();
  for (const [key, value] of entries(own(ws, 'dependencies'))) {
    const dep = dependency(dir, key, value, 'dependencies', null);
    if (dep !== null) dependencies.set(key, dep);
  }
  return {
    members: textList(own(ws, 'members')),
    exclude: textList(own(ws, 'exclude')),
    defaultMembers: textList(own(ws, 'default-members')),
    dependencies,
    version: text(own(table(own(ws, 'package')), 'version')),
    license: text(own(table(own(ws, 'package')), 'license')),
  };
}

export type ManifestRead = { readonly ok: true; readonly manifest: CargoManifest } | { readonly ok: false; readonly problem: FileProblem };

export function parseCargoManifest(path: string, content: string): ManifestRead {
  const read = readToml(path, content);
  if (!read.ok) return read;
  const { doc } = read;
  const dir = dirOf(path);
  const pkg = table(own(doc, 'package')) ?? table(own(doc, 'project'));
  const name = text(own(pkg, 'name'));
  const field = (key: string): PackageField => {
    const value = own(pkg, key);
    return { value: text(value), inherited: own(table(value), 'workspace') === true };
  };
  const workspace = workspaceOf(dir, doc);
  if (pkg !== null && name === null) {
    return { ok: false, problem: { path, reason: 'malformed', message: '[package] has no name' } };
  }
  if (pkg === null && workspace === null) {
    return { ok: false, problem: { path, reason: 'malformed', message: 'neither [package] nor [workspace]: not a Cargo manifest' } };
  }
  const dependencies: CargoDependency[] = [];
  dependencyTables(dir, doc, null, dependencies);
  for (const [target, holder] of entries(own(doc, 'target'))) dependencyTables(dir, table(holder), target, dependencies);
  const features = new Map<string, readonly string[]>();
  for (const [feature, enables] of entries(own(doc, 'features'))) features.set(feature, textList(enables));
  return {
    ok: true,
    manifest: {
      path,
      dir,
      package: name === null ? null : { name, version: field('version'), license: field('license') },
      workspace,
      dependencies,
      features,
    },
  };
}

/** A member's dependencies with `workspace = true` filled in from the workspace root. */
export function inheritFrom(manifest: CargoManifest, root: CargoManifest | null): CargoManifest {
  const ws = root?.workspace ?? null;
  if (ws === null) return manifest;
  const dependencies = manifest.dependencies.map((dep) => {
    if (!dep.inherited) return dep;
    const base = ws.dependencies.get(dep.key);
    if (base === undefined) return dep;
    // The member may add `optional` and features; where it comes from is the workspace's to say.
    // Features add up; default features follow the workspace's entry (Cargo's rule).
    return { ...dep, name: base.name, req: base.req, path: base.path, git: base.git, inherited: false, features: [...base.features, ...dep.features], defaultFeatures: base.defaultFeatures };
  });
  const pkg = manifest.package;
  const inherit = (f: PackageField, from: string | null): PackageField => (f.inherited ? { value: from, inherited: false } : f);
  return {
    ...manifest,
    dependencies,
    package: pkg === null ? null : { ...pkg, version: inherit(pkg.version, ws.version), license: inherit(pkg.license, ws.license) },
  };
}

/** Cargo's own words for where a dependency was declared: `dev-dependencies`, `target.'cfg(unix)'.dependencies`. */
function kindOf(dep: CargoDependency): string {
  return dep.target === null ? dep.section : `target.'${dep.target}'.${dep.section}`;
}

/** What a requirement asks for: the version requirement, else the git or path source. */
function rangeOf(dep: CargoDependency): string {
  if (dep.git !== null) return dep.git;
  if (dep.req !== '') return dep.req;
  if (dep.path !== null) return `path+${dep.path}`;
  return '';
}

export function declarationsOf(manifest: CargoManifest): Declaration[] {
  return manifest.dependencies.map((dep) => ({ manifest: manifest.path, name: dep.name, range: rangeOf(dep), kind: kindOf(dep), ecosystem: 'cargo' }));
}

/**
 * The optional dependencies (by key) that the `default` feature turns on, following features that
 * enable features. `dep:x` and `x/feat` enable x; `x?/feat` does not. Each feature is visited once.
 */
function enabledByDefault(manifest: CargoManifest): Set<string> {
  const enabled = new Set<string>();
  const visited = new Set<string>();
  const pending = ['default'];
  while (pending.length > 0) {
    const feature = pending.pop() ?? '';
    if (visited.has(feature)) continue;
    visited.add(feature);
    for (const entry of manifest.features.get(feature) ?? []) {
      if (entry.startsWith('dep:')) enabled.add(entry.slice(4));
      else if (entry.includes('?/')) continue;
      else if (entry.includes('/')) enabled.add(entry.slice(0, entry.indexOf('/')));
      else if (manifest.features.has(entry)) pending.push(entry);
      // An optional dependency is also an implicit feature of its own name.
      else enabled.add(entry);
    }
  }
  return enabled;
}

const RANK: Readonly<Record<'prod' | 'optional' | 'dev', number>> = { prod: 3, optional: 2, dev: 1 };

/**
 * How each crate (by real name) is declared by this manifest, for the graph walk from it:
 * normal and build dependencies ship (`prod`), dev-dependencies do not (`dev`), and an optional
 * dependency is `optional` unless a feature turns it on (`enabled`: by key; the manifest's own
 * default features when not given, see features.ts for a workspace's). A crate declared several
 * ways takes the strongest.
 */
export function edgeKinds(manifest: CargoManifest, enabled?: ReadonlySet<string>): Map<string, EdgeKind> {
  const defaults = enabled ?? enabledByDefault(manifest);
  const kinds = new Map<string, 'prod' | 'optional' | 'dev'>();
  for (const dep of manifest.dependencies) {
    const kind = dep.section === 'dev-dependencies' ? 'dev' : dep.optional && !defaults.has(dep.key) ? 'optional' : 'prod';
    const seen = kinds.get(dep.name);
    if (seen === undefined || RANK[kind] > RANK[seen]) kinds.set(dep.name, kind);
  }
  return kinds;
}
