import type { EdgeKind, Occurrence } from '../../model/model.js';
import { parseJsonc, StructureBounds } from '../../model/safe-parse.js';
import { LimitExceededError } from '../../model/types.js';
import {
  classifySpec,
  isObject,
  missingRequirements,
  normalizeRelative,
  npmGraph,
  projectOccurrence,
  splitDescriptor,
  stringRecord,
  type Coverage,
  type ParseContext,
  type ParsedLockfile,
} from './common.js';

/**
 * bun.lock (the text lockfile, JSON with comments and trailing commas). `packages` is keyed by
 * install path (`express/debug` is debug nested under express); each value is
 * `[ident, resolved, info, integrity]`. `workspaces` holds each project's declarations.
 */

export function parseBunJson(content: string, path = 'bun.lock'): Record<string, unknown> | null {
  try {
    const data = parseJsonc(path, content);
    return isObject(data) ? data : null;
  } catch (error) {
    if (error instanceof LimitExceededError) throw error;
    return null;
  }
}

export function isBunLock(data: Record<string, unknown>): boolean {
  return typeof data['lockfileVersion'] === 'number' && isObject(data['workspaces']) && isObject(data['packages']);
}

/** `express/@types/node/foo` → ['express', '@types/node', 'foo']. */
function keySegments(key: string): string[] {
  const parts = key.split('/');
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (part.startsWith('@') && i + 1 < parts.length) out.push(`${part}/${parts[++i] ?? ''}`);
    else out.push(part);
  }
  return out;
}

/**
 * The `packages` keys as a trie of segments, so Bun's lookup (the dependency nested under the
 * package, then under each ancestor, then top level) costs one short map probe per ancestor
 * instead of rebuilding and hashing every ancestor's full key (O(depth²) per edge).
 */
class KeyTrie {
  private readonly children = new Map<string, number>();
  private readonly keys = new Map<number, string>();
  private next = 1;

  /** The node of `segments` (created when `create`); 0 is the top level; -1 when absent. */
  node(segments: readonly string[], create: boolean): number {
    let node = 0;
    for (const segment of segments) {
      const id = `${node}\0${segment}`;
      let child = this.children.get(id);
      if (child === undefined) {
        if (!create) return -1;
        child = this.next++;
        this.children.set(id, child);
      }
      node = child;
    }
    return node;
  }

  add(key: string, segments: readonly string[]): void {
    this.keys.set(this.node(segments, true), key);
  }

  /** Nodes from the top level down to `segments` (only the existing prefix). */
  ancestry(segments: readonly string[]): number[] {
    const path = [0];
    let node = 0;
    for (const segment of segments) {
      const child = this.children.get(`${node}\0${segment}`);
      if (child === undefined) break;
      path.push((node = child));
    }
    return path;
  }

  resolve(ancestry: readonly number[], name: string): string | null {
    for (let depth = ancestry.length - 1; depth >= 0; depth--) {
      const child = this.children.get(`${ancestry[depth] ?? 0}\0${name}`);
      const key = child === undefined ? undefined : this.keys.get(child);
      if (key !== undefined) return key;
    }
    return null;
  }
}

export function parseBunLock(ctx: ParseContext, data: Record<string, unknown>): ParsedLockfile {
  const workspaces = isObject(data['workspaces']) ? data['workspaces'] : {};
  const packages = isObject(data['packages']) ? data['packages'] : {};
  const graph = npmGraph(ctx);
  const covers: Coverage[] = [];
  const projects = new Map<string, Occurrence>();
  const projectByName = new Map<string, Occurrence>();

  for (const [wsPath, raw] of Object.entries(workspaces)) {
    const rel = normalizeRelative(wsPath) ?? wsPath;
    const ws = isObject(raw) ? raw : {};
    const project = projectOccurrence(
      graph,
      ctx,
      rel,
      rel,
      rel === '' ? 'root' : 'workspace',
      typeof ws['name'] === 'string' ? ws['name'] : rel || 'root',
      typeof ws['version'] === 'string' ? ws['version'] : null,
    );
    covers.push({ dir: rel, role: rel === '' ? 'root' : 'workspace' });
    projects.set(rel, project);
    projectByName.set(project.name, project);
  }

  const bounds = new StructureBounds(ctx.path);
  const entries = new Map<string, unknown[]>();
  const segmentsOf = new Map<string, string[]>();
  const trie = new KeyTrie();
  const packageKeys = Object.keys(packages);
  bounds.entries(packageKeys.length);
  for (const key of packageKeys) {
    const value = packages[key];
    if (!Array.isArray(value)) continue;
    bounds.key(key);
    entries.set(key, value);
    const segments = keySegments(key);
    segmentsOf.set(key, segments);
    trie.add(key, segments);
  }
  // By `packages` key: a workspace member's link entry maps to the member itself.
  const byKey = new Map<string, Occurrence>();
  for (const [key, value] of entries) {
    const ident = typeof value[0] === 'string' ? value[0] : key;
    const [name, spec] = splitDescriptor(ident);
    if (spec.startsWith('workspace:')) {
      // A link to a workspace member: resolves to the project itself.
      const member = projects.get(normalizeRelative(spec.slice('workspace:'.length)) ?? '');
      if (member) byKey.set(key, member);
      continue;
    }
    const info = isObject(value[2]) ? value[2] : {};
    const second = typeof value[1] === 'string' ? value[1] : '';
    const installedAs = segmentsOf.get(key)?.at(-1) ?? name;
    const registry = /^\d/.test(spec) || spec.startsWith('npm:');
    const facts: Record<string, string> = {};
    if (typeof info['os'] === 'string' || Array.isArray(info['os'])) facts['os'] = String(info['os']);
    if (typeof info['cpu'] === 'string' || Array.isArray(info['cpu'])) facts['cpu'] = String(info['cpu']);
    const o = graph.add(key, {
      name,
      version: registry ? spec.replace(/^npm:/, '') : null,
      alias: installedAs !== name ? installedAs : null,
      source: registry ? (second === '' || /\/-\//.test(second) ? 'registry' : 'tarball') : classifySpec(spec),
      resolved: second === '' ? (registry ? null : spec) : second,
      integrity: typeof value[3] === 'string' && value[3] !== '' ? value[3] : null,
      facts,
    });
    byKey.set(key, o);
  }

  const edges = (from: Occurrence, within: readonly string[], declared: [string, string, EdgeKind][]): void => {
    bounds.edges(from.installPath, declared.length);
    const ancestry = trie.ancestry(within);
    for (const [depName, range, kind] of declared) {
      const found = trie.resolve(ancestry, depName);
      const dependency = found === null ? projectByName.get(depName) : byKey.get(found);
      if (dependency) graph.edge(from, dependency, kind, range);
      else if (kind === 'prod' || kind === 'dev') graph.notice(`${ctx.path}: ${from.name} requires ${depName}@${range}, which the lockfile does not contain`);
    }
  };
  const declaredIn = (info: Record<string, unknown>, project: boolean): [string, string, EdgeKind][] => {
    const optionalPeers = new Set(Array.isArray(info['optionalPeers']) ? info['optionalPeers'].map(String) : []);
    const out: [string, string, EdgeKind][] = [];
    for (const [n, r] of Object.entries(stringRecord(info['optionalDependencies']))) out.push([n, r, 'optional']);
    for (const [n, r] of Object.entries(stringRecord(info['dependencies']))) out.push([n, r, 'prod']);
    for (const [n, r] of Object.entries(stringRecord(info['peerDependencies']))) out.push([n, r, optionalPeers.has(n) ? 'peerOptional' : 'peer']);
    if (project) for (const [n, r] of Object.entries(stringRecord(info['devDependencies']))) out.push([n, r, 'dev']);
    return out;
  };

  for (const [key, o] of byKey) {
    if (o.source === 'root' || o.source === 'workspace') continue;
    const value = entries.get(key) ?? [];
    edges(o, segmentsOf.get(key) ?? [], declaredIn(isObject(value[2]) ? value[2] : {}, false));
  }
  for (const [wsPath, raw] of Object.entries(workspaces)) {
    const rel = normalizeRelative(wsPath) ?? wsPath;
    const project = projects.get(rel);
    if (!project || !isObject(raw)) continue;
    // Bun nests a workspace's own copies under its package name.
    edges(project, rel === '' ? [] : keySegments(project.name), declaredIn(raw, true));
    const manifest = ctx.manifests.get(rel);
    if (!manifest) continue;
    const declared = new Set(declaredIn(raw, true).map(([n]) => n));
    for (const d of missingRequirements(manifest, (name) => declared.has(name))) graph.unresolved(d);
  }

  // bun.lock records no dev/optional flags: they are derived from the graph.
  return { inventory: graph.finish({ kind: 'bun-lock', version: String(data['lockfileVersion']), scopes: 'graph' }), covers };
}
