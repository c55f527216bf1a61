import { newerFormatNotice } from '../shared/format-version.js';
import type { EdgeKind, Occurrence } from '../../model/model.js';
import { parseYamlDocuments, StructureBounds } from '../../model/safe-parse.js';
import type { ScopeRule } from '../shared/builder.js';
import {
  isObject,
  joinPath,
  linkedOccurrence,
  missingRequirements,
  normalizeRelative,
  npmGraph,
  projectOccurrence,
  stringRecord,
  text,
  type Coverage,
  type ParseContext,
  type ParsedLockfile,
} from './common.js';

/**
 * pnpm-lock.yaml 5.x (`/name/version_peers` keys), 6.x (`/name@version(peers)`) and 9.x
 * (`name@version` in `packages`, one `snapshots` entry per peer variant). A file may hold
 * several YAML documents (pnpm 11+ puts config and package-manager dependencies in a leading
 * "env" document): every document is read, and their packages are all components.
 */

type Dialect = 5 | 6 | 9;

interface ImporterDeps {
  readonly deps: [string, string, EdgeKind][];
}

export function isPnpmLock(content: string): boolean {
  return /^lockfileVersion:\s*['"]?\d/m.test(content) && /^(importers|packages|dependencies|specifiers|snapshots):/m.test(content);
}

/** The first lockfile major this reader does not know (pnpm 9 to 11 write 9.0). */
const NEXT_PNPM_MAJOR = 10;

function dialectOf(version: string): Dialect {
  const major = Number.parseFloat(version);
  if (major >= 9) return 9;
  if (major >= 6) return 6;
  return 5;
}

/** `(react@18.2.0)` peer suffixes and v5 `_react@18.2.0` ones off a version. */
function bareVersion(version: string, dialect: Dialect): string {
  if (dialect === 5) return version.split('_')[0] ?? version;
  const paren = version.indexOf('(');
  return paren === -1 ? version : version.slice(0, paren);
}

/** Name and version of a package key in any dialect. */
function parseKey(key: string, dialect: Dialect): { name: string; version: string } | null {
  const k = key.startsWith('/') ? key.slice(1) : key;
  if (dialect === 5) {
    const parts = k.split('/');
    const nameParts = parts[0]?.startsWith('@') ? 2 : 1;
    const name = parts.slice(0, nameParts).join('/');
    const version = parts.slice(nameParts).join('/');
    return name && version ? { name, version } : null;
  }
  const at = k.indexOf('@', k.startsWith('@') ? 1 : 0);
  if (at <= 0) return null;
  return { name: k.slice(0, at), version: k.slice(at + 1) };
}

function keyFor(name: string, version: string, dialect: Dialect): string {
  if (dialect === 5) return `/${name}/${version}`;
  return dialect === 6 ? `/${name}@${version}` : `${name}@${version}`;
}

/**
 * The package key a dependency value points at: a plain version of the same name, an alias
 * (`/real@1.0.0` or `real@1.0.0`), or a link to another importer (null then).
 */
function targetKey(name: string, value: string, dialect: Dialect): string | null {
  if (value.startsWith('link:')) return null;
  if (value.startsWith('/')) return value;
  if (dialect === 9) {
    const parsed = parseKey(value, dialect);
    // `lodash@4.17.21` names another package (an alias); `4.17.21(peer@1)` is a version.
    if (parsed && !/^\d/.test(value) && !value.startsWith('file:') && !value.startsWith('http')) return value;
  }
  return keyFor(name, value, dialect);
}

function importerDeps(importer: Record<string, unknown>, dialect: Dialect): ImporterDeps {
  const deps: [string, string, EdgeKind][] = [];
  const sections: [string, EdgeKind][] = [
    ['optionalDependencies', 'optional'],
    ['dependencies', 'prod'],
    ['devDependencies', 'dev'],
    ['configDependencies', 'dev'],
    ['packageManagerDependencies', 'dev'],
  ];
  for (const [section, kind] of sections) {
    const value = importer[section];
    if (!isObject(value)) continue;
    for (const [name, spec] of Object.entries(value)) {
      if (dialect === 5 && typeof spec === 'string') deps.push([name, spec, kind]);
      else if (isObject(spec) && typeof spec['version'] === 'string') deps.push([name, spec['version'], kind]);
    }
  }
  return { deps };
}

function resolutionOf(entry: Record<string, unknown>): { integrity: string | null; resolved: string | null; source: Occurrence['source'] } {
  const resolution = isObject(entry['resolution']) ? entry['resolution'] : {};
  const integrity = typeof resolution['integrity'] === 'string' ? resolution['integrity'] : null;
  if (typeof resolution['tarball'] === 'string') {
    const tarball = resolution['tarball'];
    return { integrity, resolved: tarball, source: tarball.startsWith('file:') ? 'file' : integrity !== null && /\/-\//.test(tarball) ? 'registry' : 'tarball' };
  }
  if (resolution['type'] === 'git' && typeof resolution['repo'] === 'string') {
    const commit = typeof resolution['commit'] === 'string' ? `#${resolution['commit']}` : '';
    return { integrity, resolved: `${resolution['repo']}${commit}`, source: 'git' };
  }
  if (resolution['type'] === 'directory' && typeof resolution['directory'] === 'string') {
    return { integrity, resolved: `file:${resolution['directory']}`, source: 'file' };
  }
  return { integrity, resolved: null, source: 'registry' };
}

export function parsePnpmLock(ctx: ParseContext, content: string): ParsedLockfile {
  const documents = parseYamlDocuments(ctx.path, content).filter(isObject);
  const bounds = new StructureBounds(ctx.path);
  const graph = npmGraph(ctx);
  const covers: Coverage[] = [];
  const rootsByDir = new Map<string, Occurrence>();
  // The names each importer's requirements were resolved under (an alias and the real name both).
  const requiredNames = new Map<string, Set<string>>();
  // Entries some dependent requires by their real name: those are no alias's, whatever else asks.
  const byRealName = new Set<Occurrence>();
  const linked = new Map<string, Occurrence>();
  /** The dependency a `link:` to a folder that is no importer (`link:../lib`) points at; `target` is relative to the lockfile's folder. */
  const linkedAt = (target: string, kind: EdgeKind): Occurrence => {
    let o = linked.get(target);
    if (!o) {
      o = linkedOccurrence(graph, ctx, target, null, null, 'link');
      o.dev = kind === 'dev';
      o.optional = kind === 'optional';
      linked.set(target, o);
      covers.push({ dir: target, role: 'workspace' });
    } else if (kind !== 'dev') {
      // Linked by a requirement that ships: not dev; by a required one: not optional either.
      o.dev = false;
      if (kind !== 'optional') o.optional = false;
    }
    return o;
  };
  let version = '';
  // 9.x no longer records dev/optional: they are derived from the graph.
  let scopes: ScopeRule = 'recorded';

  documents.forEach((doc, index) => {
    const env = documents.length > 1 && index < documents.length - 1;
    const declared = doc['lockfileVersion'];
    if (typeof declared === 'string' || typeof declared === 'number') version = String(declared);
    const dialect = dialectOf(version);
    if (dialect === 9) scopes = 'graph';
    const prefix = env ? `env${index}:` : '';
    const packages = isObject(doc['packages']) ? doc['packages'] : {};
    const snapshots = dialect === 9 && isObject(doc['snapshots']) ? doc['snapshots'] : packages;
    const byKey = new Map<string, Occurrence>();
    const snapshotKeys = Object.keys(snapshots);
    bounds.entries(snapshotKeys.length + Object.keys(packages).length);
    for (const key of snapshotKeys) {
      bounds.key(key);
      const raw = snapshots[key];
      const snapshot = isObject(raw) ? raw : {};
      const parsed = parseKey(key, dialect);
      if (!parsed) continue;
      const bare = bareVersion(parsed.version, dialect);
      const meta = dialect === 9 ? packages[keyFor(parsed.name, bare, dialect)] : snapshot;
      const entry = isObject(meta) ? meta : {};
      const { integrity, resolved, source } = resolutionOf(entry);
      const facts: Record<string, string> = {};
      if (env) facts['pnpm-env'] = 'true';
      if (bare !== parsed.version) facts['peer-variant'] = parsed.version.slice(bare.length);
      if (typeof entry['deprecated'] === 'string') facts['deprecated'] = entry['deprecated'];
      // Only the strings of a list: nested lists would be stringified whole (an alias bomb's payload).
      if (Array.isArray(entry['os'])) facts['os'] = entry['os'].filter((v) => typeof v === 'string').join(',');
      if (Array.isArray(entry['cpu'])) facts['cpu'] = entry['cpu'].filter((v) => typeof v === 'string').join(',');
      const name = text(entry['name']) ?? parsed.name;
      const o = graph.add(prefix + key, {
        name,
        version: typeof entry['version'] === 'string' ? entry['version'] : /^\d/.test(bare) ? bare : null,
        source,
        resolved,
        integrity,
        dev: entry['dev'] === true || env,
        optional: entry['optional'] === true || snapshot['optional'] === true,
        facts,
      });
      byKey.set(key, o);
    }

    const lookup = (name: string, value: string): Occurrence | undefined => {
      const key = targetKey(name, value, dialect);
      const found = key === null ? undefined : (byKey.get(key) ?? byKey.get(key.replace(/^\//, '')));
      // pnpm records aliases on the edge (`my-lodash: lodash@4.17.21`): note it on the package,
      // unless the entry is also required by its real name (then it is that package, once).
      if (found && found.name !== name) found.alias ??= name;
      if (found && found.name === name) byRealName.add(found);
      return found;
    };

    for (const [key, o] of byKey) {
      const raw = snapshots[key];
      const snapshot = isObject(raw) ? raw : {};
      // Resolved peers are listed among a snapshot's dependencies; the package entry says which.
      const parsed = parseKey(key, dialect);
      const metaRaw = dialect === 9 && parsed ? packages[keyFor(parsed.name, bareVersion(parsed.version, dialect), dialect)] : raw;
      const meta = isObject(metaRaw) ? metaRaw : {};
      const peers = stringRecord(meta['peerDependencies']);
      const peerMeta = isObject(meta['peerDependenciesMeta']) ? meta['peerDependenciesMeta'] : {};
      const kindOf = (depName: string, declared: EdgeKind): EdgeKind => {
        if (peers[depName] === undefined) return declared;
        const m = peerMeta[depName];
        return isObject(m) && m['optional'] === true ? 'peerOptional' : 'peer';
      };
      for (const [section, kind] of [
        ['dependencies', 'prod'],
        ['optionalDependencies', 'optional'],
      ] as const) {
        const declared = Object.entries(stringRecord(snapshot[section]));
        bounds.edges(key, declared.length);
        for (const [depName, value] of declared) {
          const dependency = lookup(depName, value);
          if (dependency) graph.edge(o, dependency, kindOf(depName, kind));
          else if (!value.startsWith('link:') && kind !== 'optional') graph.notice(`${ctx.path}: ${key} requires ${depName}@${value}, which the lockfile does not contain`);
        }
      }
    }

    const importers = isObject(doc['importers']) ? doc['importers'] : { '.': doc };
    for (const [importerPath, raw] of Object.entries(importers)) {
      if (!isObject(raw)) continue;
      if (normalizeRelative(importerPath) === null) {
        // An importer outside the lockfile's folder is a linked folder: what it installs is its
        // dependencies' (not its devDependencies'); dev until something that ships links it.
        const from = linkedAt(importerPath, 'dev');
        for (const [depName, value, kind] of importerDeps(raw, dialect).deps) {
          const dependency = kind === 'dev' || value.startsWith('link:') ? undefined : lookup(depName, value);
          if (dependency) graph.edge(from, dependency, kind);
        }
        continue;
      }
      const rel = normalizeRelative(importerPath) ?? importerPath;
      let project = rootsByDir.get(rel);
      if (!project) {
        project = projectOccurrence(graph, ctx, rel, rel, rel === '' ? 'root' : 'workspace', rel === '' ? 'root' : rel);
        rootsByDir.set(rel, project);
        covers.push({ dir: rel, role: rel === '' ? 'root' : 'workspace' });
      }
      const declared = importerDeps(raw, dialect).deps;
      bounds.edges(importerPath, declared.length);
      const names = requiredNames.get(rel) ?? new Set<string>();
      requiredNames.set(rel, names);
      for (const [depName, value, kind] of declared) {
        if (value.startsWith('link:')) continue;
        const dependency = lookup(depName, value);
        if (dependency) {
          graph.edge(project, dependency, kind);
          names.add(depName);
        } else graph.notice(`${ctx.path}: importer ${importerPath} requires ${depName}@${value}, which the lockfile does not contain`);
      }
    }
    // Links between importers (workspace:*, link:../b) resolve once every importer exists; a link
    // to a folder that is no importer (outside the lockfile's folder) is a linked dependency.
    for (const [importerPath, raw] of Object.entries(importers)) {
      const rel = normalizeRelative(importerPath);
      const from = rel === null ? undefined : rootsByDir.get(rel);
      if (!isObject(raw) || rel === null || !from) continue;
      for (const [depName, value, kind] of importerDeps(raw, dialect).deps) {
        if (!value.startsWith('link:')) continue;
        const fromLock = joinPath(rel, value.slice('link:'.length));
        const targetDir = normalizeRelative(fromLock);
        const target = (targetDir === null ? undefined : rootsByDir.get(targetDir)) ?? linkedAt(targetDir ?? fromLock, kind);
        graph.edge(from, target, kind);
        requiredNames.get(rel)?.add(depName);
      }
    }
  });

  for (const o of byRealName) o.alias = null;
  const importerNames = new Set([...rootsByDir.values()].map((o) => o.name));
  for (const [dir] of rootsByDir) {
    const manifest = ctx.manifests.get(dir);
    if (!manifest) continue;
    const names = requiredNames.get(dir) ?? new Set<string>();
    const has = (name: string, range: string): boolean => names.has(name) || range.startsWith('workspace:') || importerNames.has(name);
    for (const d of missingRequirements(manifest, has)) graph.unresolved(d);
  }

  // pnpm reads a newer lockfile minor as its own and converts older ones; a later major is read as 9.0, said.
  if (Number.parseFloat(version) >= NEXT_PNPM_MAJOR) graph.notice(newerFormatNotice(ctx.path, 'pnpm-lock.yaml', version, '9.0'));
  return { inventory: graph.finish({ kind: 'pnpm-lock', version, scopes }), covers };
}
