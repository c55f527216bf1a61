import { emptyInventory, type Inventory } from '../../model/model.js';
import type { FileProblem } from '../../model/types.js';
import { GraphBuilder, mergeInventory } from '../shared/builder.js';
import { dirOf, joinDir } from '../shared/paths.js';
import type { BuildContext, ClaimedFile, Ecosystem, EcosystemInventory, RegistryEndpoint } from '../types.js';
import { claimGem, manifestOfLock } from './detect.js';
import { isDevOnly, readGemfile, type Gemfile } from './gemfile.js';
import { readGemspec, type Gemspec } from './gemspec.js';
import { lockInventory } from './lock-graph.js';
import { parseGemfileLock } from './parse-gemfile-lock.js';
import { gemPurl } from './purl.js';
import { rubygemsMetadataClient } from './registry.js';

/**
 * Ruby: Gemfile.lock / gems.locked are the record; Gemfile / gems.rb and `*.gemspec` are
 * manifests (read as text, never run). A lockfile's Gemfile gives the groups (scopes) and its
 * gemspec names the project; a manifest no lockfile covers gives declarations (an exactly pinned
 * Gemfile gem is a component: the file states it), never a resolution against the registry.
 */

interface ProjectSpec {
  readonly path: string;
  readonly spec: Gemspec;
  readonly developmentGroup: string;
}

function baseName(dir: string): string {
  return dir.slice(dir.lastIndexOf('/') + 1);
}

/** A Gemfile with the gems of the uploaded files it `eval_gemfile`s (each once; a missing one is a notice). */
function withEvaluated(path: string, gemfiles: ReadonlyMap<string, Gemfile>, notices: string[], seen = new Set<string>()): Gemfile {
  const own = gemfiles.get(path) ?? { gems: [], gemspecs: [], evals: [] };
  seen.add(path);
  const gems = [...own.gems];
  const gemspecs = [...own.gemspecs];
  for (const rel of own.evals) {
    const target = joinDir(dirOf(path), rel);
    if (seen.has(target)) continue;
    if (!gemfiles.has(target)) {
      notices.push(`${path} evaluates ${rel}, which was not uploaded: its gems are not known`);
      continue;
    }
    const evaluated = withEvaluated(target, gemfiles, notices, seen);
    gems.push(...evaluated.gems);
    gemspecs.push(...evaluated.gemspecs);
  }
  return { gems, gemspecs, evals: own.evals };
}

/** The gemspecs a Gemfile's `gemspec` directives name, else those in its folder. */
function projectSpecs(dir: string, gemfile: Gemfile | null, specs: ReadonlyMap<string, Gemspec>): ProjectSpec[] {
  const inFolder = (folder: string, name: string | null, developmentGroup: string): ProjectSpec[] =>
    [...specs].filter(([p, s]) => dirOf(p) === folder && (name === null || s.name === name)).map(([p, spec]) => ({ path: p, spec, developmentGroup }));
  if (gemfile !== null && gemfile.gemspecs.length > 0) return gemfile.gemspecs.flatMap((g) => inFolder(joinDir(dir, g.path), g.name, g.developmentGroup));
  return inFolder(dir, null, 'development');
}

/** Gemfile and gemspec requirements of a project no lockfile covers. */
function standalone(manifest: string, gemfile: Gemfile | null, specs: readonly ProjectSpec[]): Inventory {
  const b = new GraphBuilder(manifest, 'gem');
  const spec = specs[0]?.spec;
  const root = b.root('', { name: spec?.name ?? (baseName(dirOf(manifest)) || 'project'), version: spec?.version ?? null, license: spec?.license ?? null, installPath: '' });
  let declared = 0;
  for (const gem of gemfile?.gems ?? []) {
    const exact = gem.from === null && gem.requirements.length === 1 ? /^(?:=\s*)?(\d[\w.]*)$/.exec(gem.requirements[0]?.trim() ?? '')?.[1] : undefined;
    const dev = isDevOnly(gem.groups);
    if (exact !== undefined) {
      const o = b.add(`${gem.name} (${exact})`, { name: gem.name, version: exact, source: 'registry', dev, resolved: `https://rubygems.org/gems/${gem.name}-${exact}.gem` });
      b.edge(root, o, dev ? 'dev' : 'prod');
      continue;
    }
    declared++;
    b.unresolved({ manifest, name: gem.name, range: gem.requirements.join(', '), kind: gem.groups.join(','), ecosystem: 'gem' });
  }
  for (const { path, spec: s } of specs) {
    for (const d of s.dependencies) {
      declared++;
      b.unresolved({ manifest: path, name: d.name, range: d.requirements.join(', '), kind: d.kind, ecosystem: 'gem' });
    }
    if (path !== manifest) b.manifest(path, 'resolution_failed', 'no Gemfile.lock or gems.locked was uploaded; its requirements are listed as declarations', 'standalone');
  }
  b.manifest(manifest, 'resolution_failed', declared === 0 ? null : 'no Gemfile.lock or gems.locked was uploaded; its requirements are listed as declarations', 'standalone');
  return b.finish(null, 'recorded');
}

async function build(files: readonly ClaimedFile[], ctx: BuildContext): Promise<EcosystemInventory> {
  const inventory = emptyInventory();
  const problems: FileProblem[] = [];
  const gemfiles = new Map(files.filter((f) => f.kind === 'gemfile').map((f) => [f.path, readGemfile(f.content)]));
  const specs = new Map(files.filter((f) => f.kind === 'gemspec').map((f) => [f.path, readGemspec(f.content)]));
  const covered = new Set<string>();

  for (const lock of files.filter((f) => f.kind === 'gemfile-lock')) {
    ctx.signal?.throwIfAborted();
    const read = parseGemfileLock(lock.path, lock.content);
    const manifest = manifestOfLock(lock.path);
    covered.add(manifest);
    if (!read.ok) {
      problems.push(read.problem);
      inventory.notices.push(`${lock.path} was skipped: ${read.problem.message ?? 'malformed'}`);
      continue;
    }
    const gemfile = gemfiles.has(manifest) ? withEvaluated(manifest, gemfiles, inventory.notices) : null;
    const dir = dirOf(lock.path);
    const mine = projectSpecs(dir, gemfile, specs);
    for (const s of mine) covered.add(s.path);
    const name = lock.path.slice(lock.path.lastIndexOf('/') + 1);
    mergeInventory(
      inventory,
      lockInventory(lock.path, read.lock, {
        gemfile: gemfile === null ? null : { path: manifest, file: gemfile },
        gemspecs: mine,
        fallbackName: baseName(dir) || 'project',
        dir,
        kind: name === 'gems.locked' ? 'gems.locked' : 'Gemfile.lock',
      }),
    );
  }
  // Gemfiles that other Gemfiles evaluate are parts of those, not projects of their own.
  const evaluated = new Set([...gemfiles].flatMap(([p, g]) => g.evals.map((rel) => joinDir(dirOf(p), rel))));
  for (const path of gemfiles.keys()) {
    if (covered.has(path) || evaluated.has(path)) continue;
    const gemfile = withEvaluated(path, gemfiles, inventory.notices);
    const mine = projectSpecs(dirOf(path), gemfile, specs);
    for (const s of mine) covered.add(s.path);
    mergeInventory(inventory, standalone(path, gemfile, mine));
  }
  for (const [path, spec] of specs) {
    if (!covered.has(path)) mergeInventory(inventory, standalone(path, null, [{ path, spec, developmentGroup: 'development' }]));
  }
  for (const f of files) if (f.role === 'manifest') ctx.onManifestDone();
  return { inventory, problems };
}

/**
 * The Ruby ecosystem. `registry` is the RubyGems.org origin from `PACKAGE_REGISTRIES.rubygems` with
 * the registry HTTP client; null runs offline (no metadata).
 */
export function gemEcosystem(registry: RegistryEndpoint | null): Ecosystem {
  return {
    id: 'gem',
    label: 'Ruby',
    claim: claimGem,
    build,
    purl: gemPurl,
    metadata: registry === null ? null : rubygemsMetadataClient(registry),
  };
}
