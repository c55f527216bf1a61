import { emptyInventory, type Inventory } from '../../model/model.js';
import { GraphBuilder, mergeInventory } from '../shared/builder.js';
import type { BuildContext, ClaimedFile, Ecosystem, EcosystemInventory, FileProblem, RegistryEndpoint } from '../types.js';
import { claimCargo } from './detect.js';
import { workspaceEdgeKinds } from './features.js';
import { declarationsOf, dirOf, inheritFrom, parseCargoManifest, type CargoManifest } from './manifest.js';
import { parseCargoLock } from './parse-cargo-lock.js';
import { resolveManifest } from './resolve.js';
import { cargoPurl } from './purl.js';
import { cratesMetadataClient } from './registry.js';
import { workspaceFor } from './workspace.js';

/**
 * Rust: Cargo.lock (v1–v4) and Cargo.toml. A lockfile gives the components and their edges; the
 * manifests beside it tell which path packages are the project's own crates and, when every
 * member's manifest is there, the scopes (dev-dependencies dev, optional ones optional). A
 * Cargo.toml without a Cargo.lock is resolved against crates.io when a registry is configured
 * (see resolve.ts); offline, its requirements stay declarations.
 */

/** The folder `dir` is in `parent` (or is it). */
function within(dir: string, parent: string): boolean {
  return parent === '' || dir === parent || dir.startsWith(`${parent}/`);
}

/** Each manifest goes to the lockfile of the nearest enclosing folder (a nested workspace has its own). */
function nearestLock(manifest: CargoManifest, lockDirs: readonly string[]): string | null {
  let best: string | null = null;
  for (const dir of lockDirs) if (within(manifest.dir, dir) && (best === null || dir.length > best.length)) best = dir;
  return best;
}

/**
 * A manifest no lockfile covers: resolved against crates.io when the ecosystem has a registry;
 * otherwise (or when resolution fails) its package is a root and its requirements declarations.
 */
async function standalone(manifest: CargoManifest, root: CargoManifest | null, registry: RegistryEndpoint | null, signal?: AbortSignal): Promise<Inventory> {
  const resolved = inheritFrom(manifest, root);
  const outcome = registry === null ? null : await resolveManifest(resolved, registry, signal);
  if (outcome?.ok === true) return outcome.inventory;
  const builder = new GraphBuilder(manifest.path, 'cargo');
  const pkg = resolved.package;
  if (pkg !== null) builder.root(pkg.name, { name: pkg.name, version: pkg.version.value, license: pkg.license.value, installPath: '' });
  for (const declaration of declarationsOf(resolved)) builder.unresolved(declaration);
  const inventory = builder.finish(null, 'unknown');
  inventory.associations.push({ manifest: manifest.path, lockfile: null, role: 'standalone' });
  inventory.resolutions.push({
    manifest: manifest.path,
    outcome: 'resolution_failed',
    detail: outcome === null ? 'no Cargo.lock was uploaded and no registry is available; its requirements are listed as declarations' : `${outcome.detail}; its requirements are listed as declarations`,
  });
  return inventory;
}

async function build(registry: RegistryEndpoint | null, files: readonly ClaimedFile[], ctx: BuildContext): Promise<EcosystemInventory> {
  const inventory = emptyInventory();
  const problems: FileProblem[] = [];
  const manifests: CargoManifest[] = [];
  for (const file of files) {
    if (file.kind !== 'cargo-toml') continue;
    const read = parseCargoManifest(file.path, file.content);
    if (read.ok) manifests.push(read.manifest);
    else problems.push(read.problem);
  }
  const locks = files.filter((f) => f.kind === 'cargo-lock');
  const lockDirs = locks.map((l) => dirOf(l.path));
  const covered = new Set<string>();

  for (const lock of locks) {
    ctx.signal?.throwIfAborted();
    const dir = dirOf(lock.path);
    const mine = manifests.filter((m) => nearestLock(m, lockDirs) === dir);
    const view = workspaceFor(lock.path, mine);
    const kinds = workspaceEdgeKinds(view.members);
    const read = parseCargoLock(lock.path, lock.content, {
      isMember: (name, version) => view.isMember(name, version),
      rootName: view.root?.package?.name ?? null,
      // A virtual manifest (`[workspace]` without `[package]`): the workspace is the project.
      virtualRoot: view.root !== null && view.root.package === null ? view.dir.slice(view.dir.lastIndexOf('/') + 1) || 'project' : null,
      memberKinds: (name) => kinds.get(name) ?? null,
      memberLicense: (name) => view.members.get(name)?.package?.license.value ?? null,
      covered: view.covered.map(({ manifest, role }) => ({ path: manifest.path, role })),
      declared: [...view.members.values()].flatMap(declarationsOf),
    });
    if (read.ok) {
      mergeInventory(inventory, read.inventory);
      for (const { manifest } of view.covered) covered.add(manifest.path);
      // Any other manifest below the lockfile of a crate it records (a path dependency outside the
      // workspace, a `cargo vendor` copy) was resolved by this lockfile: not a project of its own.
      // The association roles have no word for it, so it is covered without one.
      const recorded = new Set(read.inventory.occurrences.map((o) => o.name));
      for (const m of mine) if (m.package !== null && recorded.has(m.package.name)) covered.add(m.path);
    } else {
      problems.push(read.problem);
      inventory.notices.push(`${lock.path} was skipped: ${read.problem.message}`);
    }
    ctx.onManifestDone();
  }

  // Manifests outside every lockfile's workspace; a workspace root without a lockfile lends
  // its `[workspace.dependencies]` to the members below it.
  const roots = manifests.filter((m) => m.workspace !== null);
  for (const manifest of manifests) {
    if (covered.has(manifest.path)) continue;
    const root = roots.filter((r) => within(manifest.dir, r.dir)).sort((a, b) => b.dir.length - a.dir.length)[0] ?? null;
    if (manifest.package !== null) mergeInventory(inventory, await standalone(manifest, root, registry, ctx.signal));
  }
  for (const _ of files.filter((f) => f.kind === 'cargo-toml')) ctx.onManifestDone();
  return { inventory, problems };
}

/**
 * The Rust ecosystem. `registry` is the crates.io origin from `PACKAGE_REGISTRIES.crates` with the
 * registry HTTP client; null runs offline (no metadata).
 */
export function cargoEcosystem(registry: RegistryEndpoint | null): Ecosystem {
  return {
    id: 'cargo',
    label: 'Rust',
    claim: claimCargo,
    build: (files, ctx) => build(registry, files, ctx),
    purl: cargoPurl,
    metadata: registry === null ? null : cratesMetadataClient(registry),
    // Progress counts every Cargo file: each lockfile and each manifest is one unit of work.
    countManifests: (files) => files.length,
  };
}
