import { emptyInventory, type Inventory, type Occurrence } from '../../model/model.js';
import { AnalysisError } from '../../model/types.js';
import { GraphBuilder, mergeInventory } from '../shared/builder.js';
import { JvmFileError } from '../maven/xml.js';
import { dirOf, joinDir } from '../shared/paths.js';
import type { ClaimedFile, Ecosystem, EcosystemInventory, FileProblem, RegistryEndpoint } from '../types.js';
import { claimNuget } from './detect.js';
import { parseDepsJson, parseNugetLock } from './lockfile.js';
import { declaredVersion, expand, pinnedVersion, readMsbuild, readPackagesConfig, type MsbuildFile, type PackageRef } from './msbuild.js';
import { nugetPurl } from './purl.js';
import { nugetMetadataClient } from './registry.js';
import { problemOf as sharedProblemOf } from '../shared/problems.js';

/**
 * .NET: each project's `packages.lock.json` is its record — one component per package and resolved
 * version of that lock (across its target frameworks), the contentHash as SHA-512, edges to the
 * exact entries of the same framework; `Project` entries are project references: roots, never
 * components. A requested range is a constraint, never a version. `packages.config` and
 * `*.deps.json` are records too. A project without any is read from its project file (with the
 * nearest `Directory.Build.props` and central versions from the nearest `Directory.Packages.props`,
 * `VersionOverride` first): its direct references with a pinned version are components
 * (`nuget_resolution: declared`), the rest declarations; references from test projects or with
 * `PrivateAssets="all"` are development-only. Every project is a root; ids compare case-insensitively.
 */

interface Project {
  readonly path: string;
  readonly name: string;
  readonly file: MsbuildFile;
  readonly test: boolean;
  /** The version it packs as (its `<Version>` and the like, over the nearest Directory.Build.props); null when it declares none. */
  readonly version: string | null;
}

const TEST_NAME = /(^|[._-])(tests?|unittests?|integrationtests?|specs?|fuzz|fuzzing|benchmarks?)$/i;
const TEST_DIR = /(^|\/)(tests?|fuzz|benchmarks?)\//i;

function problemOf(file: ClaimedFile, error: unknown): FileProblem {
  if (error instanceof JvmFileError) return { path: file.path, reason: error.reason, message: error.message };
  return sharedProblemOf(file, error);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
}

/** The file of `files` in `dir` or the nearest folder above it (MSBuild's lookup of Directory.*.props). */
function nearest<T>(byDir: ReadonlyMap<string, T>, dir: string): T | undefined {
  for (let d = dir; ; d = dirOf(d)) {
    const found = byDir.get(d);
    if (found !== undefined || d === '') return found;
  }
}

function sha512(contentHash: string | null): string | null {
  return contentHash === null ? null : `sha512-${contentHash}`;
}

function buildLock(file: ClaimedFile, project: Project | undefined, uploadedProjects: ReadonlySet<string>): Inventory {
  const { version, entries } = parseNugetLock(file.path, file.content);
  const b = new GraphBuilder(file.path, 'nuget', (n) => n.toLowerCase());
  const root = b.root('', { name: project?.name ?? (dirOf(file.path).split('/').pop() || 'project'), version: project?.version ?? null, installPath: '' });
  const perFramework = new Map<string, Map<string, Occurrence>>();
  for (const e of entries) {
    const map = perFramework.get(e.framework) ?? new Map<string, Occurrence>();
    perFramework.set(e.framework, map);
    if (e.type === 'Project') {
      // A referenced project whose own files were uploaded is a root there; otherwise it is one here.
      if (!uploadedProjects.has(e.name.toLowerCase())) map.set(e.name.toLowerCase(), b.root(`project:${e.name.toLowerCase()}`, { name: e.name, version: null, installPath: e.name, source: 'workspace', facts: { project_reference_only: 'true' } }));
      continue;
    }
    if (e.resolved === null) continue;
    const o = b.add(`${e.name.toLowerCase()}@${e.resolved.toLowerCase()}`, {
      name: e.name,
      version: e.resolved,
      source: 'registry',
      integrity: sha512(e.contentHash),
      facts: e.requested === null ? {} : { nuget_requested: e.requested },
    });
    map.set(e.name.toLowerCase(), o);
  }
  for (const e of entries) {
    const map = perFramework.get(e.framework);
    const from = map?.get(e.name.toLowerCase());
    if (map === undefined || from === undefined) continue;
    if (e.type === 'Direct' || e.type === 'CentralTransitive' || e.type === 'Project') b.edge(root, from, 'prod', e.requested);
    for (const [dep, range] of Object.entries(e.dependencies)) {
      const to = map.get(dep.toLowerCase());
      if (to !== undefined) b.edge(from, to, 'prod', range);
    }
  }
  if (project !== undefined) b.covers(project.path);
  // NuGet's version 2 added CentralTransitive entries beside the same fields: a newer one is read as 2.
  if (version !== null && version > 2) b.notice(`${file.path}: packages.lock.json format version ${version} is newer than this reader knows; it was read as version 2`);
  return b.finish({ kind: 'packages.lock.json', version: version === null ? null : String(version), scopes: 'recorded' });
}

function buildPackagesConfig(file: ClaimedFile, project: Project | undefined): Inventory {
  const b = new GraphBuilder(file.path, 'nuget', (n) => n.toLowerCase());
  const root = b.root('', { name: project?.name ?? (dirOf(file.path).split('/').pop() || 'project'), version: project?.version ?? null, installPath: '' });
  for (const p of readPackagesConfig(file.content)) {
    const o = b.add(`${p.name.toLowerCase()}@${p.version.toLowerCase()}`, { name: p.name, version: p.version, source: 'registry', dev: p.dev || project?.test === true });
    b.edge(root, o, p.dev ? 'dev' : 'prod');
  }
  if (project !== undefined) b.covers(project.path);
  return b.finish({ kind: 'packages.config', version: null, scopes: 'graph' });
}

function buildDepsJson(file: ClaimedFile): Inventory {
  const { libraries, dependencies } = parseDepsJson(file.path, file.content);
  const b = new GraphBuilder(file.path, 'nuget', (n) => n.toLowerCase());
  const byName = new Map<string, Occurrence>();
  for (const lib of libraries) {
    const key = `${lib.name.toLowerCase()}@${lib.version.toLowerCase()}`;
    const o =
      lib.type === 'project'
        ? b.root(key, { name: lib.name, version: lib.version, installPath: `${lib.name}/${lib.version}`, source: byName.size === 0 ? 'root' : 'workspace' })
        : b.add(key, { name: lib.name, version: lib.version, source: 'registry', integrity: lib.sha512 });
    byName.set(lib.name.toLowerCase(), o);
  }
  for (const lib of libraries) {
    const from = byName.get(lib.name.toLowerCase());
    for (const dep of Object.keys(dependencies.get(`${lib.name}/${lib.version}`) ?? {})) {
      const to = byName.get(dep.toLowerCase());
      if (from !== undefined && to !== undefined) b.edge(from, to, 'prod');
    }
  }
  return b.finish({ kind: 'deps.json', version: null, scopes: 'unknown' });
}

interface Props {
  readonly path: string;
  readonly file: MsbuildFile;
}

/** Projects no record covers: their direct references, one builder for the upload (shared occurrences). */
function buildManifests(projects: readonly Project[], buildProps: ReadonlyMap<string, Props>, packagesProps: ReadonlyMap<string, Props>): Inventory {
  const first = projects[0];
  const central = first === undefined ? undefined : nearest(packagesProps, dirOf(first.path));
  const b = new GraphBuilder(central?.path ?? first?.path ?? 'project', 'nuget', (n) => n.toLowerCase());
  const roots = new Map<string, Occurrence>();
  projects.forEach((p, i) => roots.set(p.path.toLowerCase(), b.root(p.path, { name: p.name, version: p.version, installPath: dirOf(p.path), source: i === 0 ? 'root' : 'workspace' })));
  for (const p of projects) {
    const root = roots.get(p.path.toLowerCase());
    if (root === undefined) continue;
    const dir = dirOf(p.path);
    const build = nearest(buildProps, dir);
    const cpm = nearest(packagesProps, dir);
    const properties = new Map([...(cpm?.file.properties ?? []), ...(build?.file.properties ?? []), ...p.file.properties]);
    const refs: PackageRef[] = [...(build?.file.packageRefs ?? []), ...p.file.packageRefs, ...(cpm?.file.globalRefs ?? []).map((r) => ({ ...r, privateAll: true }))];
    const seen = new Set<string>();
    for (const ref of refs) {
      if (seen.has(ref.name.toLowerCase())) continue;
      seen.add(ref.name.toLowerCase());
      const raw = ref.versionOverride ?? ref.version ?? cpm?.file.packageVersions.get(ref.name.toLowerCase()) ?? null;
      const spec = raw === null ? null : expand(raw, properties);
      const version = spec === null ? null : pinnedVersion(spec);
      const dev = ref.privateAll || p.test;
      if (version === null) {
        b.unresolved({ manifest: p.path, name: ref.name, range: spec ?? raw ?? '', kind: dev ? 'PackageReference (development)' : 'PackageReference', ecosystem: 'nuget' });
        continue;
      }
      const o = b.add(`${ref.name.toLowerCase()}@${version.toLowerCase()}`, { name: ref.name, version, source: 'registry', facts: { nuget_resolution: 'declared' } });
      b.edge(root, o, dev ? 'dev' : 'prod', spec);
    }
    for (const target of p.file.projectRefs) {
      const other = roots.get(joinDir(dir, target.replace(/\\/g, '/')).toLowerCase());
      if (other !== undefined) b.edge(root, other, p.test ? 'dev' : 'prod');
    }
    b.manifest(p.path, 'resolution_failed', 'no packages.lock.json was uploaded and NuGet restore is not run here; its direct references are listed', p === first ? 'root' : 'workspace');
  }
  return b.finish(null, 'graph');
}

async function build(files: readonly ClaimedFile[], onManifestDone: () => void): Promise<EcosystemInventory> {
  const inventory = emptyInventory();
  const problems: FileProblem[] = [];
  const read = <T>(file: ClaimedFile, fn: () => T): T | null => {
    try {
      return fn();
    } catch (error) {
      if (error instanceof AnalysisError && error.problems.some((p) => p.limit !== undefined)) throw error;
      problems.push(problemOf(file, error));
      inventory.notices.push(`${file.path} was skipped: it could not be read`);
      return null;
    }
  };
  const readProjects: Omit<Project, 'version'>[] = [];
  const buildProps = new Map<string, Props>();
  const packagesProps = new Map<string, Props>();
  for (const f of files) {
    if (f.kind !== 'msbuild-project' && f.kind !== 'build-props' && f.kind !== 'packages-props') continue;
    const file = read(f, () => readMsbuild(f.content));
    if (file === null) continue;
    if (f.kind === 'build-props') buildProps.set(dirOf(f.path), { path: f.path, file });
    else if (f.kind === 'packages-props') packagesProps.set(dirOf(f.path), { path: f.path, file });
    else {
      const name = baseName(f.path);
      readProjects.push({ path: f.path, name, file, test: TEST_NAME.test(name) || TEST_DIR.test(f.path) || file.properties.get('IsTestProject')?.toLowerCase() === 'true' });
    }
  }
  const projects: Project[] = readProjects.map((p) => ({ ...p, version: declaredVersion(new Map([...(nearest(buildProps, dirOf(p.path))?.file.properties ?? []), ...p.file.properties])) }));
  const projectIn = (dir: string): Project | undefined => projects.find((p) => dirOf(p.path) === dir);
  const uploadedNames = new Set(projects.map((p) => p.name.toLowerCase()));
  const covered = new Set<string>();
  for (const f of files) {
    const project = projectIn(dirOf(f.path));
    let part: Inventory | null = null;
    if (f.kind === 'nuget-lock') part = read(f, () => buildLock(f, project, uploadedNames));
    else if (f.kind === 'packages-config') part = read(f, () => buildPackagesConfig(f, project));
    else if (f.kind === 'deps-json') part = read(f, () => buildDepsJson(f));
    if (part === null) continue;
    mergeInventory(inventory, part);
    if (project !== undefined && f.kind !== 'deps-json') covered.add(project.path);
  }
  const rest = projects.filter((p) => !covered.has(p.path));
  if (rest.length > 0) mergeInventory(inventory, buildManifests(rest, buildProps, packagesProps));
  for (const _ of projects) onManifestDone();
  return { inventory, problems };
}

/** .NET; `registry` is the NuGet v3 service index of `PACKAGE_REGISTRIES.nuget` (null: offline). */
export function nugetEcosystem(registry: RegistryEndpoint | null): Ecosystem {
  return {
    id: 'nuget',
    label: '.NET',
    claim: claimNuget,
    build: (files, ctx) => build(files, ctx.onManifestDone),
    purl: nugetPurl,
    metadata: registry === null ? null : nugetMetadataClient(registry),
    countManifests: (files) => files.filter((f) => f.kind === 'msbuild-project').length,
  };
}
