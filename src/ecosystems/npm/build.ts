import picomatch from 'picomatch';
import type { Detection, DetectedFile } from './detect.js';
import { declarationsOf, readManifest, type Manifest } from './manifest.js';
import { emptyInventory, type Inventory, type ManifestResolution } from '../../model/model.js';
import { parseBunLock } from './parse-bun-lock.js';
import { dirname, joinPath, normalizeRelative, type ParseContext, type ParsedLockfile } from './common.js';
import { parseNpmLock } from './parse-npm-lock.js';
import { parsePnpmLock } from './parse-pnpm-lock.js';
import { parseYarnLock } from './parse-yarn-lock.js';
import { mergeInventory } from '../shared/builder.js';
import { rangeMismatches } from './ranges.js';
import { guardParse } from '../../model/safe-parse.js';
import { AnalysisError, LimitExceededError, type FileProblem } from '../../model/types.js';

/** A manifest no lockfile covers, with the workspace members it declares (resolved together). */
export interface StandaloneProject {
  readonly manifest: Manifest;
  readonly members: readonly Manifest[];
}

export type StandaloneOutcome = ParsedLockfile | { readonly failed: ManifestResolution };

/** Resolves a manifest that no lockfile covers (against the registry), or says why it could not. */
export type StandaloneResolver = (project: StandaloneProject, signal: AbortSignal | undefined) => Promise<StandaloneOutcome>;

type LockfileFile = Exclude<DetectedFile, { kind: 'package-json' } | { kind: 'pnpm-workspace' }>;

function parseLockfile(file: LockfileFile, ctx: ParseContext): ParsedLockfile {
  switch (file.kind) {
    case 'npm-lock':
      return parseNpmLock(ctx, file.data);
    case 'yarn-lock':
      return parseYarnLock(ctx, file.content);
    case 'pnpm-lock':
      return parsePnpmLock(ctx, file.content);
    case 'bun-lock':
      return parseBunLock(ctx, file.data);
  }
}

/** Uploaded manifests under `dir`, keyed by their folder relative to it. */
function manifestsUnder(dir: string, manifests: readonly Manifest[]): Map<string, Manifest> {
  const result = new Map<string, Manifest>();
  for (const m of manifests) {
    const mdir = dirname(m.path);
    if (dir === '') result.set(mdir, m);
    else if (mdir === dir) result.set('', m);
    else if (mdir.startsWith(`${dir}/`)) result.set(mdir.slice(dir.length + 1), m);
  }
  return result;
}

/** Appends without spreading: `push(...items)` passes every item as an argument and overflows past ~100,000. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/**
 * Parses every lockfile, associates each manifest with the nearest lockfile covering it (same
 * folder, or a workspace member under a root lockfile) and resolves the manifests left over.
 */
export async function buildInventory(
  detection: Detection,
  resolveStandalone: (project: StandaloneProject) => Promise<StandaloneOutcome>,
  onManifestDone: () => void,
  /** Where a lockfile that could not be parsed is reported (with line and column where known). */
  problems: FileProblem[] = [],
): Promise<Inventory> {
  const inventory = emptyInventory();
  for (const u of detection.unreadable) inventory.notices.push(`${u.path}: ${u.reason}`);
  const manifests = detection.files.flatMap((f) => (f.kind === 'package-json' ? [readManifest(f.path, f.data)] : []));
  const lockfiles = detection.files.filter((f): f is LockfileFile => f.kind !== 'package-json' && f.kind !== 'pnpm-workspace');

  const uploaded = new Map(manifests.map((m) => [m.path, m]));
  // Nearest lockfile first: a member's own lockfile wins over its workspace root's.
  const coverage = new Map<string, { lockfile: string; role: 'root' | 'workspace'; depth: number }>();
  const parsedFiles: ParsedLockfile[] = [];
  for (const file of lockfiles) {
    const dir = dirname(file.path);
    let parsed: ParsedLockfile;
    try {
      parsed = guardParse(file.path, () => parseLockfile(file, { path: file.path, dir, manifests: manifestsUnder(dir, manifests), uploaded }));
    } catch (error) {
      // Over a limit fails the analysis (naming file and limit); a merely broken file is skipped
      // with a notice that names the file only (the parser's own message may quote internals).
      if (error instanceof LimitExceededError) throw error;
      inventory.notices.push(`${file.path} could not be parsed`);
      // Its diagnostic (the analysis then marks the document partial, as for every ecosystem).
      problems.push(...(error instanceof AnalysisError && error.problems.length > 0 ? error.problems : [{ path: file.path, reason: 'malformed' }]));
      continue;
    }
    parsedFiles.push(parsed);
    for (const c of parsed.covers) {
      // A linked folder outside the lockfile's (`../lib`) is named by its upload path.
      const manifestPath = joinPath(normalizeRelative(joinPath(dir, c.dir)) ?? joinPath(dir, c.dir), 'package.json');
      const depth = dir === '' ? 0 : dir.split('/').length;
      const current = coverage.get(manifestPath);
      if (!current || depth > current.depth) coverage.set(manifestPath, { lockfile: file.path, role: c.role, depth });
    }
  }
  for (const parsed of parsedFiles) mergeInventory(inventory, parsed.inventory);

  const standalone: Manifest[] = [];
  for (const manifest of manifests) {
    const covered = coverage.get(manifest.path);
    if (covered) {
      inventory.associations.push({ manifest: manifest.path, lockfile: covered.lockfile, role: covered.role });
      inventory.resolutions.push({ manifest: manifest.path, outcome: 'lockfile', detail: null });
      onManifestDone();
    } else {
      standalone.push(manifest);
    }
  }

  // A manifest below a lockfile's folder that the lockfile does not cover (no workspace of it
  // includes it) is a project template, a fixture or a type-only package.json inside src/: it is
  // named in a notice, not resolved against the registry. One with no lockfile above it (a lone
  // package.json, or a project beside lockfiles in sibling folders) is resolved as before.
  const lockDirs = lockfiles.map((f) => dirname(f.path));
  const below = (m: Manifest): boolean => lockDirs.some((d) => (d === '' ? dirname(m.path) !== '' : dirname(m.path).startsWith(`${d}/`)));
  const inert = standalone.filter(below);
  if (inert.length > 0) {
    const shown = inert.slice(0, 10).map((m) => m.path).join(', ');
    inventory.notices.push(
      `${inert.length} package.json file(s) below a lockfile's folder that no lockfile or workspace covers were not resolved (templates or type-only manifests): ${shown}${inert.length > 10 ? ` and ${inert.length - 10} more` : ''}`,
    );
    for (let i = 0; i < inert.length; i++) onManifestDone();
  }
  for (const project of groupStandalone(standalone.filter((m) => !below(m)))) {
    const outcome = await resolveStandalone(project);
    const all = [project.manifest, ...project.members];
    for (const m of all) {
      inventory.associations.push({ manifest: m.path, lockfile: null, role: m === project.manifest ? 'standalone' : 'workspace' });
    }
    if ('failed' in outcome) {
      for (const m of all) {
        inventory.resolutions.push({ ...outcome.failed, manifest: m.path });
        append(inventory.declarations, declarationsOf(m));
      }
    } else {
      for (const m of all) inventory.resolutions.push({ manifest: m.path, outcome: 'resolved', detail: null });
      // A resolved manifest is no lockfile: its inventory's lockfile record is left out.
      mergeInventory(inventory, { ...outcome.inventory, lockfiles: [] });
    }
    for (let i = 0; i < all.length; i++) onManifestDone();
  }
  append(inventory.notices, rangeMismatches(inventory.occurrences));
  return inventory;
}

/** Standalone manifests, each workspace root together with the members its globs select. */
function groupStandalone(manifests: readonly Manifest[]): StandaloneProject[] {
  const claimed = new Set<Manifest>();
  const projects: StandaloneProject[] = [];
  const byDepth = [...manifests].sort((a, b) => a.path.split('/').length - b.path.split('/').length);
  for (const manifest of byDepth) {
    if (claimed.has(manifest)) continue;
    claimed.add(manifest);
    const dir = dirname(manifest.path);
    const members: Manifest[] = [];
    if (manifest.workspaces.length > 0) {
      const isMember = picomatch(manifest.workspaces.map((g) => joinPath(dir, g.replace(/\/+$/, ''))));
      for (const other of byDepth) {
        if (!claimed.has(other) && isMember(dirname(other.path))) {
          claimed.add(other);
          members.push(other);
        }
      }
    }
    projects.push({ manifest, members });
  }
  return projects;
}
