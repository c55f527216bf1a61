import type { EdgeKind, Inventory, Occurrence, OccurrenceSource } from '../../model/model.js';
import { parseJson, parseToml, StructureBounds } from '../../model/safe-parse.js';
import { GraphBuilder } from '../shared/builder.js';
import { newerFormatNotice, unsupportedFormat } from '../shared/format-version.js';
import { arr, obj, sha256Integrity, str, strings } from './data.js';
import type { PyProject } from './manifest.js';
import { parseRequirement, pep503, pinnedVersion } from './names.js';

/** Poetry's, PDM's and Pipfile's locks: what each records of scope, on the shared builder. */

function sourceOf(source: Record<string, unknown>): { source: OccurrenceSource; resolved: string | null } {
  const type = str(source['type']);
  const url = str(source['url']);
  if (type === 'git') return { source: 'git', resolved: url === null ? null : `${url}${str(source['resolved_reference']) === null ? '' : `@${str(source['resolved_reference'])}`}` };
  if (type === 'url') return { source: 'tarball', resolved: url };
  if (type === 'directory' || type === 'file') return { source: 'file', resolved: url };
  return { source: 'registry', resolved: null };
}

/** The project a lock belongs to (its pyproject, when uploaded beside it) with edges to what it declares. */
function projectRoot(b: GraphBuilder, project: PyProject | null): void {
  if (project === null) return;
  const root = b.root('', { name: project.name ?? 'project', version: project.version, installPath: '' });
  b.covers(project.path);
  for (const d of project.declared) {
    const target = b.resolve(d.requirement.name);
    const kind: EdgeKind = d.scope === 'prod' ? 'prod' : d.scope === 'optional' ? 'optional' : 'dev';
    if (target) b.edge(root, target, kind, d.requirement.specifier === '' ? null : d.requirement.specifier);
  }
}

/**
 * poetry.lock (1.x and 2.x): lock 2.x `groups` (else 1.x `category`) record the scope: `main` is
 * required, or optional when the package is `optional` (an extra's); any other group is dev.
 */
export function parsePoetryLock(path: string, text: string, project: PyProject | null): Inventory {
  const doc = parseToml(path, text);
  const bounds = new StructureBounds(path);
  const packages = arr(doc['package']).map(obj);
  bounds.entries(packages.length);
  const b = new GraphBuilder(path, 'pypi', pep503);
  const legacyFiles = obj(obj(doc['metadata'])['files']);
  for (const p of packages) {
    const name = str(p['name']);
    if (name === null) continue;
    const version = str(p['version']);
    const groups = strings(p['groups']);
    const main = groups.length > 0 ? groups.includes('main') : str(p['category']) !== 'dev';
    const files = arr(p['files']).length > 0 ? arr(p['files']) : arr(legacyFiles[name]);
    b.add(`${pep503(name)}@${version ?? ''}`, {
      name,
      version,
      ...sourceOf(obj(p['source'])),
      integrity: sha256Integrity(obj(files[0])['hash']),
      dev: !main,
      optional: main && p['optional'] === true,
    });
  }
  for (const p of packages) {
    const name = str(p['name']);
    const from = name === null ? undefined : b.get(`${pep503(name)}@${str(p['version']) ?? ''}`);
    if (!from) continue;
    const deps = obj(p['dependencies']);
    bounds.edges(from.name, Object.keys(deps).length);
    for (const [dep, spec] of Object.entries(deps)) {
      const target = b.resolve(dep);
      const optional = Array.isArray(spec) ? false : obj(spec)['optional'] === true;
      if (target) b.edge(from, target, optional ? 'optional' : 'prod');
    }
  }
  projectRoot(b, project);
  const lockVersion = str(obj(doc['metadata'])['lock-version']);
  // Poetry reads a newer minor of its major (with a warning) and refuses a newer major.
  const [major = 0, minor = 0] = (lockVersion ?? '').split('.').map(Number);
  if (lockVersion !== null && (major > 2 || !(major >= 1))) throw unsupportedFormat(path, 'poetry.lock', lockVersion);
  if (major === 2 && minor > 1) b.notice(newerFormatNotice(path, 'poetry.lock', lockVersion ?? '', '2.1'));
  return b.finish({ kind: 'poetry.lock', version: lockVersion, scopes: 'recorded' });
}

/**
 * pdm.lock: `groups` record the scope — `default` is required; groups that are the project's
 * extras are optional; the others (dependency groups) dev. A package PDM writes twice (once
 * per set of extras) is one component.
 */
export function parsePdmLock(path: string, text: string, project: PyProject | null): Inventory {
  const doc = parseToml(path, text);
  const bounds = new StructureBounds(path);
  const packages = arr(doc['package']).map(obj);
  bounds.entries(packages.length);
  const b = new GraphBuilder(path, 'pypi', pep503);
  const extras = project?.extras ?? new Set<string>();
  const groupsOf = new Map<Occurrence, Set<string>>();
  for (const p of packages) {
    const name = str(p['name']);
    if (name === null) continue;
    const version = str(p['version']);
    const git = str(p['git']);
    const o = b.add(`${pep503(name)}@${version ?? ''}`, {
      name,
      version,
      source: git !== null ? 'git' : str(p['path']) !== null ? 'file' : str(p['url']) !== null ? 'tarball' : 'registry',
      resolved: git ?? str(p['url']) ?? str(p['path']),
      integrity: sha256Integrity(obj(arr(p['files'])[0])['hash']),
    });
    const groups = groupsOf.get(o) ?? new Set<string>();
    for (const g of strings(p['groups'])) groups.add(g);
    groupsOf.set(o, groups);
  }
  for (const [o, groups] of groupsOf) {
    const all = [...groups];
    o.dev = !groups.has('default') && !(all.length > 0 && all.every((g) => extras.has(g)));
    o.optional = !groups.has('default') && !o.dev;
  }
  for (const p of packages) {
    const name = str(p['name']);
    const from = name === null ? undefined : b.get(`${pep503(name)}@${str(p['version']) ?? ''}`);
    if (!from) continue;
    const deps = strings(p['dependencies']);
    bounds.edges(from.name, deps.length);
    for (const text2 of deps) {
      const req = parseRequirement(text2);
      const target = req === null ? null : b.resolve(req.name);
      if (target) b.edge(from, target, 'prod', req?.specifier === '' ? null : (req?.specifier ?? null));
    }
  }
  projectRoot(b, project);
  const version = str(obj(doc['metadata'])['lock_version']);
  return b.finish({ kind: 'pdm.lock', version, scopes: 'recorded' });
}

/**
 * Pipfile.lock: `default` is required, `develop` dev. The two are separate pin sets, so entries
 * are keyed by name and version: a package pinned alike in both counts once, as required; one
 * pinned in `develop` at another version is a second, dev component. It records no edges; git,
 * path and editable entries keep their reference.
 */
export function parsePipfileLock(path: string, text: string, pipfile: string | null): Inventory {
  const doc = obj(parseJson(path, text));
  const b = new GraphBuilder(path, 'pypi', pep503);
  const sections: [string, boolean][] = [
    ['default', false],
    ['develop', true],
  ];
  const bounds = new StructureBounds(path);
  bounds.entries(Object.keys(obj(doc['default'])).length + Object.keys(obj(doc['develop'])).length);
  for (const [section, dev] of sections) {
    for (const [name, entry] of Object.entries(obj(doc[section]))) {
      const e = obj(entry);
      const git = str(e['git']);
      const local = str(e['path']);
      const version = pinnedVersion(str(e['version']) ?? '') ?? (git !== null ? str(e['ref']) : null);
      b.add(`${pep503(name)}@${version ?? ''}`, {
        name,
        version,
        source: git !== null ? 'git' : local !== null ? 'file' : 'registry',
        resolved: git ?? local,
        integrity: sha256Integrity(strings(e['hashes'])[0]),
        dev,
      });
    }
  }
  if (pipfile !== null) b.covers(pipfile);
  const spec = obj(doc['_meta'])['pipfile-spec'];
  if (typeof spec === 'number' && spec > 6) b.notice(newerFormatNotice(path, 'Pipfile.lock', spec, '6'));
  else if (typeof spec === 'number' && spec < 1) throw unsupportedFormat(path, 'Pipfile.lock', spec);
  return b.finish({ kind: 'Pipfile.lock', version: typeof spec === 'number' ? String(spec) : str(spec), scopes: 'recorded' });
}
