import { emptyInventory, type Inventory, type Occurrence } from '../../model/model.js';
import { AnalysisError } from '../../model/types.js';
import { GraphBuilder, hexIntegrity, mergeInventory } from '../shared/builder.js';
import { dirOf } from '../shared/paths.js';
import type { ClaimedFile, Ecosystem, EcosystemInventory, FileProblem, RegistryEndpoint } from '../types.js';
import { claimHex } from './detect.js';
import { readMixExs, type MixProject } from './mix-exs.js';
import { parseMixLock, type LockEntry } from './mix-lock.js';
import { hexPurl } from './purl.js';
import { parseRebarLock } from './rebar-lock.js';
import { hexMetadataClient } from './registry.js';
import { problemOf } from '../shared/problems.js';
import { declaredOnly } from '../shared/declared.js';

/**
 * Elixir and Erlang: `mix.lock` (and rebar3's `rebar.lock`) are the record, one component per
 * entry — hex packages by their package name and version (the outer checksum as SHA-256), git
 * dependencies too, at their locked commit (the lock is their only record; they are not dropped) —
 * with edges from each hex entry's dependencies to the exact entries (`optional: true` ones
 * optional). The `mix.exs` beside the lock (read as text) is the root: its dependencies are its
 * edges, `only: :dev`/`:test` ones development-only, and the scopes follow the graph; an entry no
 * declared path reaches (a target-specific or computed dependency) states no scope. Without a
 * lock, `mix.exs` dependencies are declarations.
 */

function add(b: GraphBuilder, e: LockEntry): Occurrence {
  if (e.kind === 'hex') {
    return b.add(e.app, {
      name: e.name,
      version: e.version,
      source: 'registry',
      integrity: hexIntegrity('sha256', e.outerChecksum),
      facts: { ...(e.repo === 'hexpm' ? {} : { hex_repo: e.repo }), ...(e.app === e.name ? {} : { mix_app: e.app }) },
    });
  }
  return b.add(e.app, { name: e.app, version: e.commit, source: 'git', resolved: `${e.url}#${e.commit}`, facts: e.ref === null ? {} : { git_ref: e.ref } });
}

/** Entries no edge from the root reaches state no scope (the graph derivation would call them dev). */
function unreachedUnknown(inventory: Inventory): void {
  const byRef = new Map(inventory.occurrences.map((o) => [o.ref, o]));
  const seen = new Set(inventory.roots);
  const queue = [...inventory.roots];
  for (let i = 0; i < queue.length; i++) {
    for (const e of byRef.get(queue[i] ?? '')?.dependencies ?? []) {
      if (!seen.has(e.ref)) {
        seen.add(e.ref);
        queue.push(e.ref);
      }
    }
  }
  for (const o of inventory.occurrences) {
    if (seen.has(o.ref)) continue;
    o.dev = false;
    o.optional = false;
    o.scopeKnown = false;
  }
}

function buildLock(file: ClaimedFile, project: { path: string; project: MixProject } | undefined): Inventory {
  const entries = file.kind === 'rebar-lock' ? parseRebarLock(file.content) : parseMixLock(file.path, file.content);
  const b = new GraphBuilder(file.path, 'hex');
  const root =
    project === undefined ? null : b.root('', { name: project.project.app ?? (dirOf(file.path).split('/').pop() || 'project'), version: project.project.version, installPath: '' });
  for (const e of entries) add(b, e);
  for (const e of entries) {
    if (e.kind !== 'hex') continue;
    const from = b.get(e.app);
    if (from === undefined) continue;
    for (const d of e.dependencies) {
      const to = b.get(d.app);
      if (to !== undefined) b.edge(from, to, d.optional ? 'optional' : 'prod', d.requirement);
    }
  }
  if (project !== undefined && root !== null) {
    for (const d of project.project.dependencies) {
      if (d.local) continue;
      const to = b.get(d.app);
      if (to !== undefined) b.edge(root, to, d.devOnly ? 'dev' : d.optional ? 'optional' : 'prod', d.requirement === '' ? null : d.requirement);
      else b.unresolved({ manifest: project.path, name: d.app, range: d.requirement, kind: d.devOnly ? 'deps (only dev/test)' : 'deps', ecosystem: 'hex' });
    }
    b.covers(project.path);
  }
  const inventory = b.finish({ kind: file.kind === 'rebar-lock' ? 'rebar.lock' : 'mix.lock', version: null, scopes: project === undefined ? 'unknown' : 'graph' });
  if (project !== undefined) unreachedUnknown(inventory);
  return inventory;
}

async function build(files: readonly ClaimedFile[], onManifestDone: () => void): Promise<EcosystemInventory> {
  const inventory = emptyInventory();
  const problems: FileProblem[] = [];
  const projects = new Map(files.filter((f) => f.kind === 'mix-exs').map((f) => [dirOf(f.path), { path: f.path, project: readMixExs(f.content) }]));
  const covered = new Set<string>();
  for (const file of files.filter((f) => f.role === 'lockfile')) {
    const project = file.kind === 'mix-lock' ? projects.get(dirOf(file.path)) : undefined;
    try {
      mergeInventory(inventory, buildLock(file, project));
      if (project !== undefined) covered.add(project.path);
    } catch (error) {
      if (error instanceof AnalysisError && error.problems.some((p) => p.limit !== undefined)) throw error;
      problems.push(problemOf(file, error));
      inventory.notices.push(`${file.path} was skipped: it could not be read as a ${file.kind === 'rebar-lock' ? 'rebar.lock' : 'mix.lock'}`);
    }
  }
  for (const { path, project } of projects.values()) {
    onManifestDone();
    if (covered.has(path)) continue;
    const declared = project.dependencies.filter((d) => !d.local).map((d) => ({ name: d.app, range: d.requirement, kind: d.devOnly ? 'deps (only dev/test)' : 'deps' }));
    const root = { name: project.app ?? (dirOf(path).split('/').pop() || 'project'), version: project.version };
    mergeInventory(inventory, declaredOnly(path, 'hex', root, declared, 'no mix.lock was uploaded and Mix resolution is not run here; its dependencies are listed as declarations'));
  }
  return { inventory, problems };
}

/** Elixir/Erlang; `registry` is the Hex API of `PACKAGE_REGISTRIES.hex` (null: offline). */
export function hexEcosystem(registry: RegistryEndpoint | null): Ecosystem {
  return {
    id: 'hex',
    label: 'Elixir',
    claim: claimHex,
    build: (files, ctx) => build(files, ctx.onManifestDone),
    purl: hexPurl,
    metadata: registry === null ? null : hexMetadataClient(registry),
    countManifests: (files) => files.filter((f) => f.kind === 'mix-exs').length,
  };
}
