import { GraphBuilder } from '../shared/builder.js';
import type { Occurrence } from '../../model/model.js';
import type { GoMod, Replacement } from './parse-go-mod.js';
import type { GoSum } from './parse-go-sum.js';
import type { GoWork } from './parse-go-work.js';
import { compareGoVersions } from './version.js';
import { dirOf, joinDir } from '../shared/paths.js';

// Shared with the other ecosystems now; still exported here for Go's own modules.
export { dirOf, joinDir };

/**
 * The module build list of one main module (a go.mod) or one workspace (a go.work and the go.mod
 * files it uses), on the shared GraphBuilder. Decisions, where the issue leaves room:
 * - Components are the `require`d modules (direct and `// indirect`) with `replace` applied: a
 *   module replaced by another is the replacement (fact `replaces` names the original); one
 *   replaced by a directory is a module of the repository, a root (the uploaded go.mod's root when
 *   that directory's go.mod is uploaded), never a dependency. A require on an `exclude`d version is
 *   ignored, as the go command ignores it since Go 1.16, and listed in `service:declarations`.
 * - One version per module path, the highest (minimal version selection): a workspace builds one
 *   list for all its modules, so two members requiring a module at two versions give one component.
 * - Edges: go.mod records which modules the main module requires, not which module requires
 *   which, so edges run from the main module (each workspace member) to every module it requires,
 *   `// indirect` ones too (fact `indirect`), and a notice says the graph among them is unknown.
 * - go.sum's `h1:` hash is the SHA-256 of the module's file tree, not of a download: it is the
 *   fact `go_sum`, never a component hash. Modules only in go.sum are counted in a notice.
 * - Scopes are unknown: go.mod records no development/test split.
 */

export interface ModFile {
  readonly path: string;
  readonly dir: string;
  readonly mod: GoMod & { readonly module: string };
}

export interface WorkFile {
  readonly path: string;
  readonly dir: string;
  readonly work: GoWork;
}

export interface SumFile {
  readonly path: string;
  readonly dir: string;
  readonly sum: GoSum;
}

/** One main module or one workspace. */
export interface ModuleGroup {
  readonly work: WorkFile | null;
  readonly members: readonly ModFile[];
  /** The go.sum / go.work.sum files beside the group's files. */
  readonly sums: readonly SumFile[];
}

interface Selected {
  version: string;
  indirect: boolean;
  readonly from: { root: Occurrence; version: string }[];
}

/** A replacement with the directory its relative paths are read from. */
interface Placed {
  readonly rule: Replacement;
  readonly dir: string;
}

class Replacements {
  private readonly any = new Map<string, Placed>();
  private readonly exact = new Map<string, Placed>();
  /**
   * Adds a rule; returns the replaced module when an earlier rule sent it elsewhere. The go command
   * refuses such conflicts unless go.work decides (`override`); here the later rule wins, named.
   */
  add(rule: Replacement, dir: string, override = false): string | null {
    const placed = { rule, dir };
    const map = rule.old.version === null ? this.any : this.exact;
    const key = rule.old.version === null ? rule.old.path : `${rule.old.path}@${rule.old.version}`;
    const before = map.get(key);
    map.set(key, placed);
    if (override || before === undefined) return null;
    const target = (p: Placed): string => (p.rule.new.version === null ? `dir:${joinDir(p.dir, p.rule.new.path)}` : `${p.rule.new.path}@${p.rule.new.version}`);
    return target(before) === target(placed) ? null : key;
  }
  /** A version-specific replacement wins over one for every version (https://go.dev/ref/mod#go-mod-file-replace). */
  find(path: string, version: string): Placed | undefined {
    return this.exact.get(`${path}@${version}`) ?? this.any.get(path);
  }
}

export interface GroupContext {
  /** Root occurrence of every module directory seen so far (shared by all groups of an analysis). */
  readonly localRoots: Map<string, Occurrence>;
}

function moduleRootFacts(m: ModFile): Record<string, string> {
  const facts: Record<string, string> = {};
  if (m.mod.go !== null) facts['go'] = m.mod.go;
  if (m.mod.toolchain !== null) facts['toolchain'] = m.mod.toolchain;
  if (m.mod.deprecated !== null) facts['deprecated'] = m.mod.deprecated;
  return facts;
}

/** Creates the builder and the roots of a group (before any group resolves, so local replacements find them). */
export function startGroup(group: ModuleGroup, ctx: GroupContext): { builder: GraphBuilder; roots: Map<ModFile, Occurrence> } {
  const builder = new GraphBuilder(group.work?.path ?? group.members[0]?.path ?? 'go.mod', 'golang');
  const roots = new Map<ModFile, Occurrence>();
  for (const m of group.members) {
    const root = builder.root(group.work === null ? '' : m.dir === '' ? '.' : m.dir, {
      name: m.mod.module,
      version: null,
      source: group.work === null ? 'root' : 'workspace',
      // The module's directory in the upload; '' at the top, as every ecosystem's root project.
      installPath: m.dir,
      facts: moduleRootFacts(m),
    });
    roots.set(m, root);
    if (!ctx.localRoots.has(m.dir)) ctx.localRoots.set(m.dir, root);
    builder.covers(m.path, group.work === null ? 'root' : 'workspace');
  }
  return { builder, roots };
}

/** The build list of a group, as components and edges on its builder. */
export function resolveGroup(group: ModuleGroup, builder: GraphBuilder, roots: Map<ModFile, Occurrence>, ctx: GroupContext): void {
  const replacements = new Replacements();
  const excluded = new Set<string>();
  const members = new Map<string, Occurrence>();
  const conflicts = new Set<string>();
  for (const m of group.members) {
    for (const r of m.mod.replaces) {
      const conflict = replacements.add(r, m.dir);
      if (conflict !== null) conflicts.add(conflict);
    }
    for (const e of m.mod.excludes) excluded.add(`${e.path}@${e.version}`);
    const root = roots.get(m);
    if (root) members.set(m.mod.module, root);
  }
  // go.work's replacements override those of its modules.
  if (group.work) {
    for (const r of group.work.work.replaces) {
      replacements.add(r, group.work.dir, true);
      // go.work's rule settles what its modules disagree on (for every version, or for one).
      for (const c of conflicts) if (c === r.old.path || c === `${r.old.path}@${r.old.version ?? ''}` || (r.old.version === null && c.startsWith(`${r.old.path}@`))) conflicts.delete(c);
    }
  }
  if (conflicts.size > 0) {
    builder.notice(`${group.work?.path ?? group.members[0]?.path ?? 'go.mod'}: conflicting replacements for ${[...conflicts].slice(0, 10).join(', ')}; the last one was applied`);
  }

  const selected = new Map<string, Selected>();
  for (const m of group.members) {
    const root = roots.get(m);
    if (!root) continue;
    for (const r of m.mod.requires) {
      const member = members.get(r.path);
      if (member) {
        builder.edge(root, member, 'prod', r.version);
        continue;
      }
      if (excluded.has(`${r.path}@${r.version}`)) {
        builder.unresolved({ manifest: m.path, name: r.path, range: r.version, kind: 'excluded', ecosystem: 'golang' });
        builder.notice(`${m.path}: ${r.path}@${r.version} is required but excluded, so the go command ignores the requirement`);
        continue;
      }
      const s = selected.get(r.path);
      if (s === undefined) {
        selected.set(r.path, { version: r.version, indirect: r.indirect, from: [{ root, version: r.version }] });
        continue;
      }
      if (compareGoVersions(r.version, s.version) > 0) s.version = r.version;
      s.indirect &&= r.indirect;
      s.from.push({ root, version: r.version });
    }
  }

  const toolOf = toolModules(group, selected);
  const hashes = new Map<string, string>();
  for (const f of group.sums) for (const [k, h] of f.sum.content) if (!hashes.has(k)) hashes.set(k, h);
  const inBuildList = new Set<string>();
  for (const [path, s] of selected) {
    inBuildList.add(`${path}@${s.version}`);
    const placed = replacements.find(path, s.version);
    let target: Occurrence;
    if (placed !== undefined && placed.rule.new.version === null) {
      const dir = joinDir(placed.dir, placed.rule.new.path);
      const known = ctx.localRoots.get(dir);
      target =
        known ??
        builder.root(`dir:${dir}`, { name: path, version: null, source: 'workspace', installPath: dir === '' ? '.' : dir, facts: { replaces: `${path}@${s.version}` } });
      ctx.localRoots.set(dir, target);
    } else {
      const name = placed?.rule.new.path ?? path;
      const version = placed?.rule.new.version ?? s.version;
      const key = `${name}@${version}`;
      inBuildList.add(key);
      const facts: Record<string, string> = {};
      if (placed !== undefined) facts['replaces'] = `${path}@${s.version}`;
      if (s.indirect) facts['indirect'] = 'true';
      const hash = hashes.get(key);
      if (hash !== undefined) facts['go_sum'] = hash;
      const tool = toolOf.get(path);
      if (tool !== undefined) facts['tool'] = tool;
      target = builder.add(key, { name, version, source: 'registry', facts });
    }
    for (const { root, version } of s.from) builder.edge(root, target, 'prod', version);
  }
  groupNotices(group, builder, inBuildList, selected.size);
}

/** `tool` directives name packages: the module providing one is the longest required path prefix. */
function toolModules(group: ModuleGroup, selected: ReadonlyMap<string, Selected>): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of group.members) {
    for (const tool of m.mod.tools) {
      for (let p = tool; p !== ''; p = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '') {
        if (!selected.has(p)) continue;
        if (!out.has(p)) out.set(p, tool);
        break;
      }
    }
  }
  return out;
}

function groupNotices(group: ModuleGroup, builder: GraphBuilder, inBuildList: ReadonlySet<string>, required: number): void {
  const subject = group.work?.path ?? group.members[0]?.path ?? 'go.mod';
  if (required > 0) {
    builder.notice(
      `${subject}: go.mod records which modules the main module requires but not which module requires which, so edges run from the main module to each of them (indirect ones marked) and the dependencies among them are unknown`,
    );
  }
  for (const m of group.members) {
    const go = m.mod.go;
    const release = go === null ? null : /^(\d+)\.(\d+)/.exec(go);
    if (release === null || (Number(release[1]) === 1 && Number(release[2]) < 17)) {
      builder.notice(
        `${m.path} declares ${go === null ? 'no go version' : `go ${go}`}: before Go 1.17 go.mod lists only direct requirements, so modules needed indirectly are missing`,
      );
    }
    if (m.mod.unknown.length > 0) builder.notice(`${m.path}: directives not understood and ignored: ${m.mod.unknown.slice(0, 10).join(', ')}`);
  }
  if (group.work && group.work.work.unknown.length > 0) {
    builder.notice(`${group.work.path}: directives not understood and ignored: ${group.work.work.unknown.slice(0, 10).join(', ')}`);
  }
  for (const f of group.sums) {
    let content = 0;
    let modOnly = 0;
    for (const key of f.sum.versions) {
      if (inBuildList.has(key)) continue;
      if (f.sum.content.has(key)) content++;
      else modOnly++;
    }
    if (content + modOnly > 0) {
      builder.notice(
        `${f.path}: ${content + modOnly} module version(s) appear only in go.sum (${content} with a content hash, ${modOnly} with a go.mod hash only: consulted while resolving, not in the build list) and are not components`,
      );
    }
  }
}
