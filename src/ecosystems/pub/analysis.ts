import { emptyInventory, type Inventory } from '../../model/model.js';
import { AnalysisError } from '../../model/types.js';
import { GraphBuilder, hexIntegrity, mergeInventory } from '../shared/builder.js';
import { dirOf, joinDir } from '../shared/paths.js';
import type { ClaimedFile, Ecosystem, EcosystemInventory, FileProblem, RegistryEndpoint } from '../types.js';
import { claimPub } from './detect.js';
import { parsePubspec, parsePubspecLock, type LockedPackage, type Pubspec } from './files.js';
import { pubPurl } from './purl.js';
import { pubMetadataClient } from './registry.js';
import { problemOf } from '../shared/problems.js';
import { declaredOnly } from '../shared/declared.js';

/**
 * Dart and Flutter: `pubspec.lock` is the record, one component per package (hosted with its
 * SHA-256, git at its resolved commit, path packages as files). The lock says which packages the
 * project depends on directly: `direct main` and `direct overridden` are required, `direct dev`
 * excluded; it does not say which transitive packages only development ones bring in (pub keeps no
 * graph there), so those state no scope. SDK packages (`flutter`, `flutter_test`, `sky_engine`…)
 * are components too — their code ships in the app — at the version the lock records, supplied
 * by the SDK (`sdk` fact) rather than a registry. `pubspec.yaml` files beside the lock are the
 * roots — a pub workspace's root and every member (`workspace:`, `resolution: workspace`) — with
 * edges to their own dependencies; a pubspec in the folder of one of the lock's `path` packages is
 * that package, covered by the lock. Without a lock, a pubspec's dependencies are declarations.
 */

const DEFAULT_HOST = /^https?:\/\/pub\.(dev|dartlang\.org)\/?$/;

interface Member {
  readonly path: string;
  readonly spec: Pubspec;
}

function addPackage(b: GraphBuilder, p: LockedPackage): void {
  const d = p.description;
  const facts: Record<string, string> = { pub_dependency: p.dependency };
  let source: 'registry' | 'git' | 'file' | 'link' = 'registry';
  let resolved: string | null = null;
  if (p.sdk !== null) {
    // Served from the SDK's own folder (pub links it, never downloads it): not a pub.dev package
    // to enrich. The SDK is who supplies it; the documents have no supplier field, so it is a fact.
    source = 'link';
    facts['sdk'] = p.sdk;
  } else if (p.source === 'git') {
    source = 'git';
    resolved = `${d['url'] ?? ''}#${d['resolved-ref'] ?? d['ref'] ?? ''}`;
    if (d['path'] !== undefined && d['path'] !== '.') facts['git_path'] = d['path'];
  } else if (p.source === 'path') {
    source = 'file';
    resolved = d['path'] ?? null;
  } else if (d['url'] !== undefined && !DEFAULT_HOST.test(d['url'])) {
    facts['hosted_url'] = d['url'];
  }
  const o = b.add(p.name, {
    name: p.name,
    version: p.version,
    source,
    resolved,
    integrity: hexIntegrity('sha256', d['sha256']),
    dev: p.dependency === 'direct dev',
    facts,
  });
  // Only direct dependencies have a known scope (see above).
  if (!p.dependency.startsWith('direct')) o.scopeKnown = false;
}

function buildLock(file: ClaimedFile, packages: readonly LockedPackage[], members: readonly Member[], pathSpecs: readonly Member[]): Inventory {
  const b = new GraphBuilder(file.path, 'pub');
  const memberNames = new Set(members.map((m) => m.spec.name).filter((n): n is string => n !== null));
  const roots = members.map((m, i) =>
    b.root(i === 0 ? '' : dirOf(m.path), { name: m.spec.name ?? (dirOf(m.path).split('/').pop() || 'package'), version: m.spec.version, installPath: dirOf(m.path), source: i === 0 ? 'root' : 'workspace' }),
  );
  for (const p of packages) {
    // A workspace member's own entry (a path package) is its root, not a component.
    if (p.source === 'path' && memberNames.has(p.name)) continue;
    addPackage(b, p);
  }
  members.forEach((m, i) => {
    const root = roots[i];
    if (root === undefined) return;
    const link = (deps: ReadonlyMap<string, string>, kind: 'prod' | 'dev'): void => {
      for (const [name, range] of deps) {
        const to = b.get(name) ?? (memberNames.has(name) ? roots.find((r) => r.name === name) : undefined);
        if (to !== undefined) b.edge(root, to, kind, range);
      }
    };
    link(m.spec.dependencies, 'prod');
    link(m.spec.devDependencies, 'dev');
    b.covers(m.path, i === 0 ? 'root' : 'workspace');
  });
  // A path package's own pubspec names its dependencies, which the lock resolved with the rest.
  for (const m of pathSpecs) {
    const from = m.spec.name === null ? undefined : b.get(m.spec.name);
    if (from === undefined || from.source !== 'file') continue;
    for (const [name, range] of m.spec.dependencies) {
      const to = b.get(name);
      if (to !== undefined) b.edge(from, to, 'prod', range);
    }
  }
  return b.finish({ kind: 'pubspec.lock', version: null, scopes: 'recorded' });
}

/** The members a lock covers: the pubspec beside it, then the workspace members it lists. */
function membersOf(lock: ClaimedFile, pubspecs: ReadonlyMap<string, Member>): Member[] {
  const dir = dirOf(lock.path);
  const root = pubspecs.get(dir);
  if (root === undefined) return [];
  const members = [root];
  for (const w of root.spec.workspace) {
    const m = pubspecs.get(joinDir(dir, w.replace(/\/+$/, '')));
    if (m !== undefined && !members.includes(m)) members.push(m);
  }
  return members;
}

/**
 * Uploaded pubspecs of the lock's `path` packages (other than its members): each is the package
 * the lock records, resolved by it, not a project of its own.
 */
function pathPackagesOf(lock: ClaimedFile, packages: readonly LockedPackage[], pubspecs: ReadonlyMap<string, Member>, members: readonly Member[]): Member[] {
  const dir = dirOf(lock.path);
  const out: Member[] = [];
  for (const p of packages) {
    const rel = p.source === 'path' ? p.description['path'] : undefined;
    if (rel === undefined) continue;
    const m = pubspecs.get(joinDir(dir, rel.replace(/\/+$/, '')));
    if (m !== undefined && !members.includes(m) && !out.includes(m)) out.push(m);
  }
  return out;
}

async function build(files: readonly ClaimedFile[], onManifestDone: () => void): Promise<EcosystemInventory> {
  const inventory = emptyInventory();
  const problems: FileProblem[] = [];
  const pubspecs = new Map<string, Member>();
  for (const f of files.filter((x) => x.kind === 'pubspec-yaml')) {
    try {
      pubspecs.set(dirOf(f.path), { path: f.path, spec: parsePubspec(f.path, f.content) });
    } catch (error) {
      if (error instanceof AnalysisError && error.problems.some((p) => p.limit !== undefined)) throw error;
      problems.push(problemOf(f, error));
    }
  }
  const covered = new Set<string>();
  for (const lock of files.filter((f) => f.kind === 'pubspec-lock')) {
    const members = membersOf(lock, pubspecs);
    try {
      const { packages } = parsePubspecLock(lock.path, lock.content);
      const pathSpecs = pathPackagesOf(lock, packages, pubspecs, members);
      mergeInventory(inventory, buildLock(lock, packages, members, pathSpecs));
      for (const m of [...members, ...pathSpecs]) covered.add(m.path);
    } catch (error) {
      if (error instanceof AnalysisError && error.problems.some((p) => p.limit !== undefined)) throw error;
      problems.push(problemOf(lock, error));
      inventory.notices.push(`${lock.path} was skipped: it could not be read as a pubspec.lock`);
    }
  }
  for (const m of pubspecs.values()) {
    onManifestDone();
    // A workspace member is covered by its workspace's lock even when the member lists no lock of its own.
    if (covered.has(m.path) || m.spec.inWorkspace) continue;
    const declared = ([['dependencies', m.spec.dependencies], ['dev_dependencies', m.spec.devDependencies]] as const).flatMap(([kind, deps]) => [...deps].map(([name, range]) => ({ name, range, kind })));
    const root = { name: m.spec.name ?? 'package', version: m.spec.version };
    mergeInventory(inventory, declaredOnly(m.path, 'pub', root, declared, 'no pubspec.lock was uploaded and pub resolution is not run here; its dependencies are listed as declarations'));
  }
  return { inventory, problems };
}

/** Dart; `registry` is the pub API of `PACKAGE_REGISTRIES.pub` (null: offline). */
export function pubEcosystem(registry: RegistryEndpoint | null): Ecosystem {
  return {
    id: 'pub',
    label: 'Dart',
    claim: claimPub,
    build: (files, ctx) => build(files, ctx.onManifestDone),
    purl: pubPurl,
    metadata: registry === null ? null : pubMetadataClient(registry),
    countManifests: (files) => files.filter((f) => f.kind === 'pubspec-yaml').length,
  };
}
