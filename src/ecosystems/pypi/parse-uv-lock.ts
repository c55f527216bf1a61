import type { Inventory, Occurrence, OccurrenceSource } from '../../model/model.js';
import { parseToml, StructureBounds } from '../../model/safe-parse.js';
import { GraphBuilder } from '../shared/builder.js';
import { unsupportedFormat } from '../shared/format-version.js';
import { arr, obj, sha256Integrity, str } from './data.js';
import { pep503 } from './names.js';

interface UvDependency {
  readonly name: string;
  readonly version: string | null;
  readonly extras: readonly string[];
}

function dependenciesOf(list: unknown): UvDependency[] {
  return arr(list).flatMap((d) => {
    const name = str(obj(d)['name']);
    if (name === null) return [];
    return [{ name, version: str(obj(d)['version']), extras: arr(obj(d)['extra']).filter((e): e is string => typeof e === 'string') }];
  });
}

function sourceOf(source: Record<string, unknown>): { source: OccurrenceSource; resolved: string | null; project: boolean } {
  if (str(source['registry']) !== null) return { source: 'registry', resolved: null, project: false };
  if (str(source['git']) !== null) return { source: 'git', resolved: str(source['git']), project: false };
  if (str(source['url']) !== null) return { source: 'tarball', resolved: str(source['url']), project: false };
  // editable and virtual sources are the workspace's own projects; a path or directory is a local package.
  const project = str(source['editable']) !== null || str(source['virtual']) !== null;
  return { source: project ? 'workspace' : 'file', resolved: str(source['path']) ?? str(source['directory']), project };
}

/**
 * uv.lock (version 1, any revision): one occurrence per `[[package]]`; the workspace's projects
 * (editable or virtual sources) are roots; their dependencies are prod, extras optional, dependency
 * groups dev. Scopes come from a walk from the projects along which extras apply per path
 * (`walkExtras`): another package's extra counts only where a dependency entry asks for it, at the
 * scope of that entry's path.
 */
export function parseUvLock(path: string, text: string): Inventory {
  const doc = parseToml(path, text);
  // uv bumps `version` only for changes older readers cannot follow (`revision` for the others).
  if (doc['version'] !== undefined && doc['version'] !== 1) throw unsupportedFormat(path, 'uv.lock', doc['version']);
  const bounds = new StructureBounds(path);
  const packages = arr(doc['package']).map(obj);
  bounds.entries(packages.length);
  const b = new GraphBuilder(path, 'pypi', pep503);
  const byEntry = new Map<Occurrence, Record<string, unknown>>();
  for (const p of packages) {
    const name = str(p['name']);
    if (name === null) continue;
    const version = str(p['version']);
    const { source, resolved, project } = sourceOf(obj(p['source']));
    const key = `${pep503(name)}@${version ?? ''}`;
    bounds.key(key);
    const sdist = obj(p['sdist']);
    const integrity = sha256Integrity(sdist['hash']) ?? sha256Integrity(obj(arr(p['wheels'])[0])['hash']);
    const o = project
      ? b.root(key, { name, version, source: 'workspace', resolved, installPath: key })
      : b.add(key, { name, version, source, resolved, integrity });
    byEntry.set(o, p);
  }
  const target = (d: UvDependency): Occurrence | null => b.resolve(d.name, (o) => d.version === null || o.version === d.version);
  const roots = new Set(b.occurrences.filter((o) => o.source === 'workspace'));
  const active = walkExtras(byEntry, roots, target);
  for (const [o, p] of byEntry) {
    const isRoot = roots.has(o);
    for (const d of dependenciesOf(p['dependencies'])) {
      const t = target(d);
      if (t) b.edge(o, t, 'prod', d.version);
    }
    for (const [extra, list] of Object.entries(obj(p['optional-dependencies']))) {
      // Another package's extra is in the graph only where some path switched it on.
      if (!isRoot && !active.has(stateKey(o, extra))) continue;
      for (const d of dependenciesOf(list)) {
        const t = target(d);
        if (t) b.edge(o, t, isRoot ? 'optional' : 'prod', d.version);
      }
    }
    if (!isRoot) continue;
    for (const list of Object.values(obj(p['dev-dependencies']))) {
      for (const d of dependenciesOf(list)) {
        const t = target(d);
        if (t) b.edge(o, t, 'dev', d.version);
      }
    }
  }
  for (const o of b.occurrences) {
    if (roots.has(o)) continue;
    // Unreached entries (other platforms' or stale) ship with nothing: dev, as the graph walk says elsewhere.
    const scope = active.get(stateKey(o, null)) ?? 'dev';
    o.dev = scope === 'dev';
    o.optional = scope === 'optional';
  }
  const version = doc['version'];
  return b.finish({ kind: 'uv.lock', version: typeof version === 'number' ? String(version) : null, scopes: 'recorded' });
}

type Scope = 'required' | 'optional' | 'dev';
const RANK: Readonly<Record<Scope, number>> = { required: 3, optional: 2, dev: 1 };

/** A package with one of its extras switched on (`null`: the package itself, its `dependencies`). */
function stateKey(o: Occurrence, extra: string | null): string {
  return extra === null ? o.ref : `${o.ref}[${extra}]`;
}

/**
 * The widest scope at which each package, and each package's extra, is reached from the projects.
 * An `extra = [...]` on a dependency entry (in `dependencies`, an `optional-dependencies` group or a
 * `dev-dependencies` group) switches those extras of its target on for that path only: their
 * `optional-dependencies.<extra>` take the scope of the path that asked. A project's own extras
 * start optional, its dependency groups dev.
 */
function walkExtras(byEntry: ReadonlyMap<Occurrence, Record<string, unknown>>, roots: ReadonlySet<Occurrence>, target: (d: UvDependency) => Occurrence | null): Map<string, Scope> {
  const best = new Map<string, Scope>();
  const queue: [Occurrence, string | null, Scope][] = [];
  const activate = (o: Occurrence, extra: string | null, scope: Scope): void => {
    const key = stateKey(o, extra);
    const seen = best.get(key);
    if (seen !== undefined && RANK[seen] >= RANK[scope]) return;
    best.set(key, scope);
    queue.push([o, extra, scope]);
  };
  const reach = (d: UvDependency, scope: Scope): void => {
    const t = target(d);
    if (t === null) return;
    activate(t, null, scope);
    for (const extra of d.extras) activate(t, extra, scope);
  };
  for (const root of roots) {
    const p = byEntry.get(root) ?? {};
    activate(root, null, 'required');
    for (const extra of Object.keys(obj(p['optional-dependencies']))) activate(root, extra, 'optional');
    for (const list of Object.values(obj(p['dev-dependencies']))) for (const d of dependenciesOf(list)) reach(d, 'dev');
  }
  for (let next = 0; next < queue.length; next++) {
    const [o, extra, scope] = queue[next] ?? [];
    if (o === undefined || extra === undefined || scope === undefined) break;
    // A state reached again at a wider scope is queued again; this older, narrower visit is moot.
    if (best.get(stateKey(o, extra)) !== scope) continue;
    const p = byEntry.get(o) ?? {};
    const list = extra === null ? p['dependencies'] : obj(p['optional-dependencies'])[extra];
    for (const d of dependenciesOf(list)) reach(d, scope);
  }
  return best;
}
