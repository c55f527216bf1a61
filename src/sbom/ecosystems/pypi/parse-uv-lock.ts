import type { Inventory, Occurrence, OccurrenceSource } from '../../model.js';
import { parseToml, StructureBounds } from '../../safe-parse.js';
import { GraphBuilder } from '../builder.js';
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
 * groups dev; another package's extras count only where a dependent asks for them. Scopes come
 * from the graph walk from the projects.
 */
export function parseUvLock(path: string, text: string): Inventory {
  const doc = parseToml(path, text);
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
  const requestedExtras = new Map<Occurrence, Set<string>>();
  for (const p of byEntry.values()) {
    for (const d of dependenciesOf(p['dependencies'])) {
      const t = target(d);
      if (t === null) continue;
      const set = requestedExtras.get(t) ?? new Set<string>();
      for (const e of d.extras) set.add(e);
      requestedExtras.set(t, set);
    }
  }
  const roots = new Set(b.occurrences.filter((o) => o.source === 'workspace'));
  for (const [o, p] of byEntry) {
    const isRoot = roots.has(o);
    for (const d of dependenciesOf(p['dependencies'])) {
      const t = target(d);
      if (t) b.edge(o, t, 'prod', d.version);
    }
    for (const [extra, list] of Object.entries(obj(p['optional-dependencies']))) {
      if (!isRoot && requestedExtras.get(o)?.has(extra) !== true) continue;
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
  const version = doc['version'];
  return b.finish({ kind: 'uv.lock', version: typeof version === 'number' ? String(version) : null, scopes: 'graph' });
}
