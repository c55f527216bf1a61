import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { declaredDependencies } from './manifest.js';
import type { Declaration, EdgeKind, Occurrence } from '../../model.js';
import {
  addEdge,
  classifySpec,
  isObject,
  lockfileRecord,
  lockfileRef,
  normalizeRelative,
  occurrence,
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

export function parseBunJson(content: string): Record<string, unknown> | null {
  const errors: ParseError[] = [];
  const data: unknown = parseJsonc(content, errors, { allowTrailingComma: true, disallowComments: false });
  return errors.length === 0 && isObject(data) ? data : null;
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

/** Bun's lookup: the dependency nested under the package, then under each ancestor, then top level. */
function resolveKey(entries: ReadonlyMap<string, unknown>, from: string[], name: string): string | null {
  for (let depth = from.length; depth >= 0; depth--) {
    const candidate = [...from.slice(0, depth), name].join('/');
    if (entries.has(candidate)) return candidate;
  }
  return null;
}

export function parseBunLock(ctx: ParseContext, data: Record<string, unknown>): ParsedLockfile {
  const workspaces = isObject(data['workspaces']) ? data['workspaces'] : {};
  const packages = isObject(data['packages']) ? data['packages'] : {};
  const occurrences: Occurrence[] = [];
  const roots: string[] = [];
  const covers: Coverage[] = [];
  const notices: string[] = [];
  const unresolved: Declaration[] = [];
  const projects = new Map<string, Occurrence>();
  const projectByName = new Map<string, Occurrence>();

  for (const [wsPath, raw] of Object.entries(workspaces)) {
    const rel = normalizeRelative(wsPath) ?? wsPath;
    const ws = isObject(raw) ? raw : {};
    const project = projectOccurrence(
      ctx,
      rel,
      rel,
      rel === '' ? 'root' : 'workspace',
      typeof ws['name'] === 'string' ? ws['name'] : rel || 'root',
      typeof ws['version'] === 'string' ? ws['version'] : null,
    );
    occurrences.push(project);
    roots.push(project.ref);
    covers.push({ dir: rel, role: rel === '' ? 'root' : 'workspace' });
    projects.set(rel, project);
    projectByName.set(project.name, project);
  }

  const entries = new Map<string, unknown[]>();
  for (const [key, value] of Object.entries(packages)) if (Array.isArray(value)) entries.set(key, value);
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
    const installedAs = keySegments(key).at(-1) ?? name;
    const registry = /^\d/.test(spec) || spec.startsWith('npm:');
    const facts: Record<string, string> = {};
    if (typeof info['os'] === 'string' || Array.isArray(info['os'])) facts['os'] = String(info['os']);
    if (typeof info['cpu'] === 'string' || Array.isArray(info['cpu'])) facts['cpu'] = String(info['cpu']);
    const o = occurrence({
      ref: lockfileRef(ctx.path, key),
      name,
      version: registry ? spec.replace(/^npm:/, '') : null,
      alias: installedAs !== name ? installedAs : null,
      installPath: key,
      lockfile: ctx.path,
      source: registry ? (second === '' || /\/-\//.test(second) ? 'registry' : 'tarball') : classifySpec(spec),
      resolved: second === '' ? (registry ? null : spec) : second,
      integrity: typeof value[3] === 'string' && value[3] !== '' ? value[3] : null,
      facts,
    });
    occurrences.push(o);
    byKey.set(key, o);
  }

  const edges = (from: Occurrence, within: string[], declared: [string, string, EdgeKind][]): void => {
    for (const [depName, range, kind] of declared) {
      const found = resolveKey(entries, within, depName);
      const dependency = found === null ? projectByName.get(depName) : byKey.get(found);
      if (dependency) addEdge(from, dependency, kind, range);
      else if (kind === 'prod' || kind === 'dev') notices.push(`${ctx.path}: ${from.name} requires ${depName}@${range}, which the lockfile does not contain`);
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
    edges(o, keySegments(key), declaredIn(isObject(value[2]) ? value[2] : {}, false));
  }
  for (const [wsPath, raw] of Object.entries(workspaces)) {
    const rel = normalizeRelative(wsPath) ?? wsPath;
    const project = projects.get(rel);
    if (!project || !isObject(raw)) continue;
    // Bun nests a workspace's own copies under its package name.
    edges(project, rel === '' ? [] : [project.name], declaredIn(raw, true));
    const manifest = ctx.manifests.get(rel);
    if (!manifest) continue;
    const declared = new Set(declaredIn(raw, true).map(([n]) => n));
    for (const d of declaredDependencies(manifest)) {
      if ((d.kind === 'prod' || d.kind === 'dev') && !declared.has(d.name)) {
        unresolved.push({ manifest: manifest.path, name: d.name, range: d.range, kind: d.field });
      }
    }
  }

  return {
    occurrences,
    roots,
    notices,
    covers,
    unresolved,
    scopesRecorded: false,
    record: lockfileRecord(ctx.path, 'bun-lock', String(data['lockfileVersion']), occurrences, roots),
  };
}
