import { mergeInventory } from '../shared/builder.js';
import type { BuildContext, ClaimedFile, Ecosystem, EcosystemInventory, FileProblem, RegistryEndpoint } from '../types.js';
import { emptyInventory, type Occurrence } from '../../model/model.js';
import { dirOf, joinDir, resolveGroup, startGroup, type ModFile, type ModuleGroup, type SumFile, type WorkFile } from './build.js';
import { claimGoFile } from './detect.js';
import { parseGoMod } from './parse-go-mod.js';
import { parseGoSum } from './parse-go-sum.js';
import { parseGoWork } from './parse-go-work.js';
import { golangPurl } from './purl.js';
import { goProxyMetadata } from './registry.js';
import { GoFileError } from './syntax.js';

/**
 * Go modules: go.mod (the build list), go.sum (hashes), go.work (workspaces). See build.ts for how
 * the build list becomes components and edges, registry.ts for what the module proxy gives.
 */

interface Parsed {
  readonly mods: ModFile[];
  readonly sums: SumFile[];
  readonly works: WorkFile[];
  readonly problems: FileProblem[];
}

function parseAll(files: readonly ClaimedFile[], signal: AbortSignal | undefined): Parsed {
  const parsed: Parsed = { mods: [], sums: [], works: [], problems: [] };
  for (const file of files) {
    signal?.throwIfAborted();
    const dir = dirOf(file.path);
    try {
      if (file.kind === 'go-mod') {
        const mod = parseGoMod(file.content);
        const { module } = mod;
        // The go command refuses a go.mod without a module directive ("no module declaration").
        if (module === null) throw new GoFileError('malformed', 'go.mod has no module directive');
        parsed.mods.push({ path: file.path, dir, mod: { ...mod, module } });
      } else if (file.kind === 'go-sum') {
        parsed.sums.push({ path: file.path, dir, sum: parseGoSum(file.content) });
      } else if (file.kind === 'go-work') {
        parsed.works.push({ path: file.path, dir, work: parseGoWork(file.content) });
      }
    } catch (error) {
      if (!(error instanceof GoFileError)) throw error;
      parsed.problems.push({
        path: file.path,
        reason: error.reason,
        message: error.message,
        ...(error.line === undefined ? {} : { line: error.line }),
        ...(error.column === undefined ? {} : { column: error.column }),
      });
    }
  }
  return parsed;
}

/**
 * Groups go.mod files: the modules a go.work `use`s form one workspace (the first go.work naming a
 * directory takes it); every other go.mod is a main module of its own. go.sum files join the group
 * of the go.mod beside them; a go.work.sum joins its workspace.
 */
function groupsOf(parsed: Parsed, notices: string[]): ModuleGroup[] {
  const byDir = new Map<string, ModFile>();
  for (const m of parsed.mods) byDir.set(m.dir, m);
  const sumsByDir = new Map<string, SumFile[]>();
  for (const s of parsed.sums) {
    const list = sumsByDir.get(s.dir);
    if (list) list.push(s);
    else sumsByDir.set(s.dir, [s]);
  }
  const taken = new Set<ModFile>();
  const groups: ModuleGroup[] = [];
  for (const work of parsed.works) {
    const members: ModFile[] = [];
    const missing: string[] = [];
    for (const use of work.work.use) {
      const m = byDir.get(joinDir(work.dir, use));
      if (m === undefined) missing.push(use);
      else if (!taken.has(m)) {
        taken.add(m);
        members.push(m);
      }
    }
    if (missing.length > 0) {
      notices.push(`${work.path} uses ${missing.length} module director${missing.length === 1 ? 'y' : 'ies'} whose go.mod was not uploaded (${missing.slice(0, 10).join(', ')})`);
    }
    if (members.length === 0) continue;
    const dirs = new Set([work.dir, ...members.map((m) => m.dir)]);
    groups.push({ work, members, sums: [...dirs].flatMap((d) => sumsByDir.get(d) ?? []) });
  }
  for (const m of parsed.mods) {
    if (!taken.has(m)) groups.push({ work: null, members: [m], sums: (sumsByDir.get(m.dir) ?? []).filter((s) => s.path.endsWith('go.sum')) });
  }
  const used = new Set(groups.flatMap((g) => g.sums));
  for (const s of parsed.sums) {
    if (!used.has(s)) notices.push(`${s.path} was not used: no ${s.path.endsWith('go.work.sum') ? 'go.work' : 'go.mod'} beside it was read`);
  }
  return groups;
}

async function build(files: readonly ClaimedFile[], ctx: BuildContext): Promise<EcosystemInventory> {
  const parsed = parseAll(files, ctx.signal);
  const inventory = emptyInventory();
  for (const p of parsed.problems) inventory.notices.push(`${p.path} was skipped: ${p.message}${p.line === undefined ? '' : ` (line ${p.line})`}`);
  const groups = groupsOf(parsed, inventory.notices);
  const localRoots = new Map<string, Occurrence>();
  const started = groups.map((g) => ({ group: g, ...startGroup(g, { localRoots }) }));
  for (const { group, builder, roots } of started) {
    ctx.signal?.throwIfAborted();
    resolveGroup(group, builder, roots, { localRoots });
    const version = group.work?.work.go ?? group.members[0]?.mod.go ?? null;
    mergeInventory(inventory, builder.finish({ kind: group.work === null ? 'go.mod' : 'go.work', version, scopes: 'unknown' }));
    for (const _ of group.members) ctx.onManifestDone();
  }
  // A go.mod that could not be read is finished with too (progress counts every manifest).
  const goMods = new Set(files.filter((f) => f.kind === 'go-mod').map((f) => f.path));
  for (const p of parsed.problems) if (goMods.has(p.path)) ctx.onManifestDone();
  return { inventory, problems: parsed.problems };
}

/**
 * The Go ecosystem. `registry` is `PACKAGE_REGISTRIES.go` (a GOPROXY base URL) with the registry
 * HTTP client; null runs offline (no metadata).
 */
export function golangEcosystem(registry: RegistryEndpoint | null): Ecosystem {
  return {
    id: 'golang',
    label: 'Go',
    claim: claimGoFile,
    build,
    purl: (o) => (o.ecosystem === 'golang' ? golangPurl(o.name, o.version) : null),
    metadata: registry === null ? null : goProxyMetadata(registry),
    countManifests: (files) => files.filter((f) => f.kind === 'go-mod').length,
  };
}
