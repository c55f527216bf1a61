import { GraphBuilder } from '../shared/builder.js';
import type { Inventory, Occurrence } from '../../model/model.js';
import { dirOf } from '../shared/paths.js';
import { projectDir, type BuildDependency, type GradleSettings } from './gradle-build.js';
import { strongestScope, type GradleLock } from './parse-gradle-lock.js';
import { accessorOf, type VersionCatalog } from './parse-version-catalog.js';
import { integrityOf, isMetadataOnly, mainArtifact, type VerifiedComponent } from './parse-verification-metadata.js';

/**
 * One Gradle build of the upload as one inventory: every project (the directory of a lockfile or
 * build script, and each `include` of the settings) is a root. Decisions:
 * - Lockfiles are the record: a module version is one component however many lockfiles and
 *   configurations hold it; its scope is the strongest its configurations give (see
 *   `configurationScope`: main classpaths required, test ones dev, tool-only ones no scope stated);
 *   fact `gradle_configurations` lists them. Edges run from each project to what its lockfile
 *   holds: the lockfile records no graph among modules.
 * - verification-metadata.xml gives hashes (SHA-256/512 of the module's own jar, else its POM) to
 *   the matching components. It lists every artifact Gradle verified, plugins and parent POMs
 *   included, so its components become components only when the build has no lockfile, with no
 *   scope stated, and never those with only a POM or module metadata (parents, BOMs, platforms).
 * - Without a lockfile, build scripts' literal coordinates and catalog references are declarations
 *   (`service:declarations`), and the build script is recorded as unresolved: a Gradle build is
 *   never run here.
 */

export interface GradleFiles {
  readonly locks: readonly { readonly path: string; readonly lock: GradleLock }[];
  readonly verifications: readonly { readonly path: string; readonly components: readonly VerifiedComponent[] }[];
  readonly catalogs: readonly { readonly path: string; readonly catalog: VersionCatalog }[];
  readonly scripts: readonly { readonly path: string; readonly dependencies: readonly BuildDependency[] }[];
  readonly settings: readonly { readonly path: string; readonly settings: GradleSettings }[];
}

/** The project directory of a lockfile: `gradle/dependency-locks/x.lockfile` belongs to the directory above `gradle`. */
function lockProjectDir(path: string): string {
  const dir = dirOf(path);
  return dir === 'gradle/dependency-locks' ? '' : dir.endsWith('/gradle/dependency-locks') ? dir.slice(0, -'/gradle/dependency-locks'.length) : dir;
}

/** A build file's directory, with `gradle/` (catalogs, verification) meaning the build's root. */
function projectRoots(files: GradleFiles, builder: GraphBuilder): Map<string, Occurrence> {
  const settings = files.settings[0];
  const base = settings === undefined ? '' : dirOf(settings.path);
  const dirs = new Set<string>();
  for (const s of files.settings) {
    dirs.add(dirOf(s.path));
    for (const inc of s.settings.includes) dirs.add([dirOf(s.path), projectDir(inc)].filter((p) => p !== '').join('/'));
  }
  for (const l of files.locks) dirs.add(lockProjectDir(l.path));
  for (const s of files.scripts) dirs.add(dirOf(s.path));
  const roots = new Map<string, Occurrence>();
  for (const dir of [...dirs].sort()) {
    const top = dir === base;
    const name = top ? (settings?.settings.rootName ?? (dir.split('/').pop() || 'root')) : (dir.split('/').pop() ?? dir);
    roots.set(dir, builder.root(dir === '' ? '.' : dir, { name, version: null, source: top ? 'root' : 'workspace', installPath: dir }));
  }
  return roots;
}

function hashesOf(files: GradleFiles): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of files.verifications) {
    for (const c of v.components) {
      const a = mainArtifact(c);
      const integrity = a === null ? null : integrityOf(a);
      if (integrity !== null) out.set(`${c.group}:${c.name}:${c.version}`, integrity);
    }
  }
  return out;
}

function fromLocks(files: GradleFiles, builder: GraphBuilder, roots: ReadonlyMap<string, Occurrence>, hashes: ReadonlyMap<string, string>): void {
  const confs = new Map<string, Set<string>>();
  for (const { lock } of files.locks) {
    for (const m of lock.modules) {
      const key = `${m.group}:${m.artifact}:${m.version}`;
      const set = confs.get(key) ?? new Set<string>();
      for (const c of m.configurations) set.add(c);
      confs.set(key, set);
    }
  }
  for (const { path, lock } of files.locks) {
    const root = roots.get(lockProjectDir(path));
    for (const m of lock.modules) {
      const coordinate = `${m.group}:${m.artifact}:${m.version}`;
      const all = [...(confs.get(coordinate) ?? [])].sort();
      const scope = strongestScope(all);
      const o =
        builder.get(coordinate) ??
        builder.add(coordinate, {
          name: `${m.group}:${m.artifact}`,
          version: m.version,
          source: 'registry',
          dev: scope === 'dev',
          integrity: hashes.get(coordinate) ?? null,
          facts: { gradle_configurations: all.join(',') },
        });
      if (scope === 'tool') o.scopeKnown = false;
      if (root !== undefined) builder.edge(root, o, scope === 'dev' ? 'dev' : 'prod', m.version);
    }
  }
}

function fromVerification(files: GradleFiles, builder: GraphBuilder, root: Occurrence | undefined, hashes: ReadonlyMap<string, string>): void {
  let parents = 0;
  for (const v of files.verifications) {
    for (const c of v.components) {
      if (isMetadataOnly(c)) {
        parents++;
        continue;
      }
      const key = `${c.group}:${c.name}:${c.version}`;
      const o = builder.get(key) ?? builder.add(key, { name: `${c.group}:${c.name}`, version: c.version, source: 'registry', integrity: hashes.get(key) ?? null, facts: { gradle_verification: 'true' } });
      o.scopeKnown = false;
      if (root !== undefined) builder.edge(root, o, 'prod', c.version);
    }
    builder.notice(`${v.path}: no lockfile was uploaded, so the components are what Gradle verified (build tooling included, ${parents} metadata-only parents, BOMs and platforms left out); which of them ship is unknown`);
  }
}

function declarations(files: GradleFiles, builder: GraphBuilder): void {
  const libraries = new Map<string, { name: string; version: string }>();
  const bundles = new Map<string, readonly string[]>();
  for (const { path, catalog } of files.catalogs) {
    for (const l of catalog.libraries) libraries.set(accessorOf(l.alias), { name: `${l.group}:${l.artifact}`, version: l.version });
    for (const [alias, members] of catalog.bundles) bundles.set(`bundles.${accessorOf(alias)}`, members.map(accessorOf));
    const used = new Set<string>();
    for (const s of files.scripts) {
      for (const d of s.dependencies) {
        const ref = d.catalogRef?.toLowerCase();
        if (ref !== undefined) for (const member of bundles.get(ref) ?? [ref]) used.add(member);
      }
    }
    // A catalog whose aliases no uploaded build script names still declares them for the build.
    for (const l of catalog.libraries) {
      if (!used.has(accessorOf(l.alias))) builder.unresolved({ manifest: path, name: `${l.group}:${l.artifact}`, range: l.version, kind: 'libraries', ecosystem: 'maven' });
    }
    for (const p of catalog.plugins) builder.unresolved({ manifest: path, name: p.id, range: p.version, kind: 'plugins', ecosystem: 'maven' });
  }
  for (const { path, dependencies } of files.scripts) {
    for (const d of dependencies) {
      if (d.coordinate !== null) {
        const [group = '', artifact = '', version = ''] = d.coordinate.split(':');
        builder.unresolved({ manifest: path, name: `${group}:${artifact}`, range: version, kind: d.configuration, ecosystem: 'maven' });
        continue;
      }
      const ref = (d.catalogRef ?? '').toLowerCase();
      const members = bundles.get(ref) ?? [ref];
      for (const member of members) {
        const lib = libraries.get(member);
        if (lib !== undefined) builder.unresolved({ manifest: path, name: lib.name, range: lib.version, kind: d.configuration, ecosystem: 'maven' });
        else builder.notice(`${path}:${d.line}: libs.${member} names no library of an uploaded version catalog`);
      }
    }
  }
}

export function buildGradle(files: GradleFiles): Inventory {
  const first = files.locks[0]?.path ?? files.scripts[0]?.path ?? files.catalogs[0]?.path ?? files.verifications[0]?.path ?? files.settings[0]?.path ?? 'build.gradle';
  const builder = new GraphBuilder(first, 'maven');
  const roots = projectRoots(files, builder);
  const hashes = hashesOf(files);
  if (files.locks.length > 0) {
    fromLocks(files, builder, roots, hashes);
    for (const s of files.scripts) builder.covers(s.path, dirOf(s.path) === '' ? 'root' : 'workspace');
    const unlocked = files.scripts.filter((s) => !files.locks.some((l) => lockProjectDir(l.path) === dirOf(s.path)));
    if (unlocked.length > 0) builder.notice(`no lockfile was uploaded for ${unlocked.map((s) => s.path).slice(0, 10).join(', ')}: their dependencies are not listed`);
    const inventory = builder.finish({ kind: 'gradle.lockfile', version: null, scopes: 'recorded' });
    // One record per lockfile of the build (the builder records the first for all of them).
    inventory.lockfiles.splice(0, inventory.lockfiles.length, ...files.locks.map((l) => ({ path: l.path, kind: 'gradle.lockfile', version: null, entries: l.lock.modules.length })));
    return inventory;
  }
  fromVerification(files, builder, roots.get(files.settings[0] === undefined ? '' : dirOf(files.settings[0].path)) ?? roots.values().next().value, hashes);
  declarations(files, builder);
  for (const s of files.scripts) builder.manifest(s.path, 'resolution_failed', 'Gradle builds are never run here and no gradle.lockfile was uploaded: literal declarations only', dirOf(s.path) === '' ? 'root' : 'workspace');
  for (const c of files.catalogs) builder.manifest(c.path, 'resolution_failed', 'a version catalog declares versions; without a gradle.lockfile nothing was resolved');
  return builder.finish(null, 'recorded');
}
