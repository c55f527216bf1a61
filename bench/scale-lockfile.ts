/**
 * The monorepo bench:scale analyses: an npm workspace project of real package names and versions
 * (bench/fixtures/scale/versions.json, recorded by scripts/record-scale-names.js) with one
 * package-lock.json (lockfileVersion 3) of at least 50,000 entries, built deterministically from a
 * seed.
 *
 * How the tree is built, as npm's installer lays one out (simplified):
 * - every package version declares its dependencies (a fixed, seeded choice of other names, a few
 *   of them optional or peer) with a wanted version, the same wherever that version is installed;
 * - the root project's and each workspace's direct dependencies are placed, then their
 *   dependencies, breadth first: a dependency the node_modules lookup already finds at a version
 *   satisfying the range is shared; otherwise it goes to the highest free folder on the lookup path
 *   (the root's `node_modules`, then the workspace's), and where each is taken by another version,
 *   under the dependent itself (`node_modules/a/node_modules/b`);
 * - once laid out, every edge is looked up again as npm would, and its range is the wanted one when
 *   the found version satisfies it, else the found version's caret range (later placements can
 *   shadow earlier ones), so every edge resolves to an entry that exists;
 * - `dev`, `optional` and `devOptional` follow from what reaches each entry, as npm computes them;
 *   entries nothing reaches are pruned, as npm would.
 * Workspaces are `packages/ws-NN` with their `node_modules/@scale/ws-NN` links. `resolved` points
 * at a local registry address (like bench/fixtures/large), `integrity` is a SHA-512 of the
 * coordinate (the shape npm records; no tarball is fetched), and `license` is drawn from a
 * distribution like the registry's (most MIT): the recording keeps only names and versions.
 *
 *   npx tsx bench/scale-lockfile.ts <dir> [seed]    writes the project into <dir>
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

/** The registry address `resolved` names (as in bench/fixtures/large); nothing is fetched from it. */
const RESOLVED_BASE = 'http://127.0.0.1:4873';
const SCOPE = '@scale';

export interface ScaleOptions {
  readonly seed?: number;
  /** Workspaces under packages/ (default 25). */
  readonly workspaces?: number;
  /** Direct dependencies of each workspace (default 70). */
  readonly directPerWorkspace?: number;
  /** Lockfile entries to reach at least; workspaces' direct dependencies grow until then (default 50,000). */
  readonly minEntries?: number;
}

export interface ScaleMonorepo {
  /** Relative path → text, ready to write or upload. */
  readonly files: Record<string, string>;
  /** Entries of `packages` in package-lock.json, the root's "" included. */
  readonly entries: number;
  /** Entries of registry packages (not the root, workspaces or links). */
  readonly registryEntries: number;
  /** Distinct name@version among them. */
  readonly distinct: number;
  /** Entries nested under another package (`…/node_modules/a/node_modules/b`). */
  readonly nested: number;
}

type Kind = 'prod' | 'dev' | 'optional' | 'peer';

interface Requirement {
  readonly name: string;
  readonly wanted: string;
  readonly kind: Kind;
}

interface Placed {
  readonly name: string;
  readonly version: string;
  /** Set after layout: name → range, per kind. */
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** A 32-bit PRNG (mulberry32): the same seed gives the same monorepo. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A number in [0, 1) fixed by `key` and the seed: per-package choices that do not depend on visiting order. */
function hashed(seed: number, key: string): number {
  return createHash('sha1').update(`${seed}:${key}`).digest().readUInt32BE(0) / 4294967296;
}

const LICENSES: readonly [string, number][] = [
  ['MIT', 0.72],
  ['ISC', 0.1],
  ['Apache-2.0', 0.08],
  ['BSD-3-Clause', 0.04],
  ['BSD-2-Clause', 0.03],
  ['0BSD', 0.01],
  ['BlueOak-1.0.0', 0.01],
  ['(MIT OR Apache-2.0)', 0.01],
];

export function readVersions(): Map<string, string[]> {
  const path = fileURLToPath(new URL('fixtures/scale/versions.json', import.meta.url));
  const data = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string[]>;
  return new Map(Object.entries(data).filter(([, list]) => list.length > 0));
}

/** The folders npm's lookup tries from the package at `path`, nearest first (each gets `/node_modules/<name>`). */
function lookupDirs(path: string): string[] {
  const dirs = [path];
  let at = path;
  while (at !== '') {
    const i = at.lastIndexOf('node_modules/');
    if (i < 0) {
      at = '';
    } else {
      at = at.slice(0, Math.max(0, i - 1));
    }
    dirs.push(at);
  }
  return dirs;
}

const slot = (dir: string, name: string): string => (dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`);

export function scaleMonorepo(versions: Map<string, string[]>, options: ScaleOptions = {}): ScaleMonorepo {
  const minEntries = options.minEntries ?? 50_000;
  // Pruning drops a few laid-out entries: lay out more until what is left is large enough.
  let built = layout(versions, options, minEntries);
  for (let target = minEntries; built.entries < minEntries; ) {
    target += Math.ceil((minEntries - built.entries) * 1.5) + 10;
    built = layout(versions, options, target);
  }
  return built;
}

function layout(versions: Map<string, string[]>, options: ScaleOptions, minEntries: number): ScaleMonorepo {
  const seed = options.seed ?? 35;
  const workspaceCount = options.workspaces ?? 25;
  const rand = random(seed);
  const names = [...versions.keys()].sort();
  // A rank per name: a version depends only on names ranked below its own, so the graph has no cycles
  // and its depth stays like a real one's.
  const order = [...names];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j] as string, order[i] as string];
  }
  const rank = new Map(order.map((name, i) => [name, i]));
  const newest = (name: string): string => {
    const list = versions.get(name) ?? [];
    return list[list.length - 1] as string;
  };

  /** What `name@version` requires: fixed by its coordinate. */
  const requirementsCache = new Map<string, Requirement[]>();
  const requirementsOf = (name: string, version: string): Requirement[] => {
    const key = `${name}@${version}`;
    const known = requirementsCache.get(key);
    if (known) return known;
    const r = rank.get(name) ?? 0;
    const out: Requirement[] = [];
    if (r > 0) {
      // Most packages have a few dependencies, some many (about 4 on average, like the registry's).
      const h = hashed(seed, `${key}#count`);
      const count = h < 0.3 ? 0 : Math.min(r, Math.floor(1 + 10 * Math.pow(hashed(seed, `${key}#n`), 2.2)));
      const seen = new Set<string>();
      for (let i = 0; i < count; i++) {
        // Mostly widely used (low-ranked) names, as real dependency graphs are.
        const pick = order[Math.floor(r * Math.pow(hashed(seed, `${key}#${i}`), 2))] as string;
        if (seen.has(pick)) continue;
        seen.add(pick);
        const list = versions.get(pick) ?? [];
        const v = hashed(seed, `${key}#${i}v`);
        // Most want a recent release; some an older one (the conflicts that make nesting).
        const wanted = v < 0.6 ? newest(pick) : (list[Math.floor(hashed(seed, `${key}#${i}w`) * list.length)] as string);
        const k = hashed(seed, `${key}#${i}k`);
        out.push({ name: pick, wanted, kind: k < 0.03 ? 'optional' : k < 0.07 ? 'peer' : 'prod' });
      }
    }
    requirementsCache.set(key, out);
    return out;
  };

  const tree = new Map<string, Placed>();
  const find = (from: string, name: string): string | null => {
    for (const dir of lookupDirs(from)) {
      const candidate = slot(dir, name);
      if (tree.has(candidate)) return candidate;
    }
    return null;
  };
  const satisfied = (path: string | null, wanted: string): boolean => {
    const found = path === null ? undefined : tree.get(path);
    return found !== undefined && semver.satisfies(found.version, `^${wanted}`);
  };

  /** Places the closure of `roots` (requirements of the project at `project`), breadth first. */
  const install = (project: string, roots: readonly Requirement[]): void => {
    const queue: [string, Requirement][] = roots.map((r) => [project, r]);
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [from, requirement] = next;
      const found = find(from, requirement.name);
      if (satisfied(found, requirement.wanted)) continue;
      // The highest free folder on the lookup path, else the dependent's own node_modules.
      const dirs = lookupDirs(from).reverse();
      let target = dirs.map((dir) => slot(dir, requirement.name)).find((candidate) => !tree.has(candidate));
      // Past three levels of nesting, share whatever the lookup finds (its range follows it).
      if (target === undefined || target.split('/node_modules/').length > 4) {
        if (found !== null) continue;
        target = slot(from, requirement.name);
      }
      tree.set(target, { name: requirement.name, version: requirement.wanted });
      for (const r of requirementsOf(requirement.name, requirement.wanted)) queue.push([target, r]);
    }
  };

  const pickVersion = (name: string): string => {
    const list = versions.get(name) ?? [];
    return rand() < 0.5 ? newest(name) : (list[Math.floor(rand() * list.length)] as string);
  };
  const pickNames = (count: number): string[] => {
    const chosen = new Set<string>();
    while (chosen.size < Math.min(count, names.length)) chosen.add(names[Math.floor(rand() * names.length)] as string);
    return [...chosen].sort();
  };

  // The root project: the monorepo's shared tooling, as devDependencies at their newest versions.
  const rootDev = pickNames(30).map((name): Requirement => ({ name, wanted: newest(name), kind: 'dev' }));
  install('', rootDev);

  interface Workspace {
    readonly name: string;
    readonly dir: string;
    readonly requirements: Requirement[];
  }
  const workspaces: Workspace[] = [];
  const direct = options.directPerWorkspace ?? 70;
  for (let i = 0; i < workspaceCount; i++) {
    const dir = `packages/ws-${String(i + 1).padStart(2, '0')}`;
    const requirements: Requirement[] = [];
    for (const name of pickNames(direct)) requirements.push({ name, wanted: pickVersion(name), kind: rand() < 0.25 ? 'dev' : rand() < 0.05 ? 'optional' : 'prod' });
    workspaces.push({ name: `${SCOPE}/ws-${String(i + 1).padStart(2, '0')}`, dir, requirements });
  }
  // Workspaces depend on some of the ones before them (linked, not installed).
  for (const [i, ws] of workspaces.entries()) {
    if (i > 0 && rand() < 0.6) ws.requirements.push({ name: (workspaces[Math.floor(rand() * i)] as Workspace).name, wanted: '1.0.0', kind: 'prod' });
  }
  for (const ws of workspaces) {
    tree.set(ws.dir, { name: ws.name, version: '1.0.0' });
    tree.set(slot('', ws.name), { name: ws.name, version: '1.0.0' });
  }
  const isLink = (path: string): boolean => path.startsWith(`node_modules/${SCOPE}/`);
  for (const ws of workspaces) install(ws.dir, ws.requirements.filter((r) => !r.name.startsWith(`${SCOPE}/`)));
  // More direct dependencies, a round at a time, until the lockfile is as large as asked.
  for (let before = -1; tree.size + 1 < minEntries && tree.size > before; ) {
    before = tree.size;
    for (const ws of workspaces) {
      const extra = pickNames(10).map((name): Requirement => ({ name, wanted: pickVersion(name), kind: rand() < 0.25 ? 'dev' : 'prod' }));
      ws.requirements.push(...extra.filter((r) => !ws.requirements.some((o) => o.name === r.name)));
      install(ws.dir, extra);
    }
  }

  // Every edge looked up once more, and its range written from what it finds.
  const edges = new Map<string, { path: string; kind: Kind }[]>();
  const record = (from: string, placed: Placed, requirement: Requirement): void => {
    const found = find(from, requirement.name);
    if (found === null) throw new Error(`${from || 'root'}: ${requirement.name} not found`);
    const target = tree.get(found) as Placed;
    const range = semver.satisfies(target.version, `^${requirement.wanted}`) ? `^${requirement.wanted}` : `^${target.version}`;
    const field = requirement.kind === 'optional' ? 'optionalDependencies' : requirement.kind === 'peer' ? 'peerDependencies' : 'dependencies';
    (placed[field] ??= {})[requirement.name] = range;
    edges.set(from, [...(edges.get(from) ?? []), { path: isLink(found) ? `packages/${found.slice(`node_modules/${SCOPE}/`.length)}` : found, kind: requirement.kind }]);
  };
  for (const [path, placed] of tree) {
    if (isLink(path) || path.startsWith('packages/ws-') && !path.includes('node_modules/')) continue;
    for (const r of requirementsOf(placed.name, placed.version)) record(path, placed, r);
  }
  const rootDevRanges: Record<string, string> = {};
  for (const r of rootDev) {
    const found = find('', r.name) as string;
    rootDevRanges[r.name] = `^${(tree.get(found) as Placed).version}`;
    edges.set('', [...(edges.get('') ?? []), { path: found, kind: 'dev' }]);
  }
  const manifests = new Map<string, { dependencies: Record<string, string>; devDependencies: Record<string, string>; optionalDependencies: Record<string, string> }>();
  for (const ws of workspaces) {
    const manifest = { dependencies: {} as Record<string, string>, devDependencies: {} as Record<string, string>, optionalDependencies: {} as Record<string, string> };
    for (const r of ws.requirements) {
      const found = find(ws.dir, r.name);
      if (found === null) throw new Error(`${ws.dir}: ${r.name} not found`);
      const target = tree.get(found) as Placed;
      const range = r.name.startsWith(`${SCOPE}/`) ? '*' : semver.satisfies(target.version, `^${r.wanted}`) ? `^${r.wanted}` : `^${target.version}`;
      manifest[r.kind === 'dev' ? 'devDependencies' : r.kind === 'optional' ? 'optionalDependencies' : 'dependencies'][r.name] = range;
      const path = isLink(found) ? `packages/${found.slice(`node_modules/${SCOPE}/`.length)}` : found;
      edges.set(ws.dir, [...(edges.get(ws.dir) ?? []), { path, kind: r.kind }]);
    }
    manifests.set(ws.dir, manifest);
  }

  // What reaches each entry: required (prod, not optional), any prod path, any dev path — npm's flags.
  const reach = (starts: { path: string; kind: Kind }[], follow: (kind: Kind) => boolean): Set<string> => {
    const seen = new Set<string>();
    const stack = starts.filter((e) => follow(e.kind)).map((e) => e.path);
    for (let path = stack.pop(); path !== undefined; path = stack.pop()) {
      if (seen.has(path)) continue;
      seen.add(path);
      for (const e of edges.get(path) ?? []) if (follow(e.kind)) stack.push(e.path);
    }
    return seen;
  };
  const projectEdges = (includeDev: boolean): { path: string; kind: Kind }[] => [
    ...(includeDev ? (edges.get('') ?? []) : []),
    ...workspaces.flatMap((ws): { path: string; kind: Kind }[] => [{ path: ws.dir, kind: 'prod' }, ...(edges.get(ws.dir) ?? []).filter((e) => includeDev || e.kind !== 'dev')]),
  ];
  const required = reach(projectEdges(false), (k) => k === 'prod' || k === 'peer');
  const prodAny = reach(projectEdges(false), (k) => k !== 'dev');
  const all = reach(projectEdges(true), () => true);
  const devRequired = reach(projectEdges(true), (k) => k !== 'optional');

  const packages: Record<string, unknown> = {};
  packages[''] = { name: 'scale-monorepo', version: '1.0.0', license: 'MIT', workspaces: ['packages/*'], devDependencies: sortedRecord(rootDevRanges) };
  let registryEntries = 0;
  let nested = 0;
  const distinct = new Set<string>();
  for (const path of [...tree.keys()].sort()) {
    const placed = tree.get(path) as Placed;
    if (isLink(path)) {
      packages[path] = { resolved: `packages/${path.slice(`node_modules/${SCOPE}/`.length)}`, link: true };
      continue;
    }
    if (!path.includes('node_modules/')) {
      const m = manifests.get(path);
      packages[path] = {
        name: placed.name,
        version: '1.0.0',
        license: 'MIT',
        ...(m && Object.keys(m.dependencies).length > 0 ? { dependencies: sortedRecord(m.dependencies) } : {}),
        ...(m && Object.keys(m.devDependencies).length > 0 ? { devDependencies: sortedRecord(m.devDependencies) } : {}),
        ...(m && Object.keys(m.optionalDependencies).length > 0 ? { optionalDependencies: sortedRecord(m.optionalDependencies) } : {}),
      };
      continue;
    }
    if (!all.has(path)) continue;
    registryEntries++;
    if (path.split('node_modules/').length > 2) nested++;
    distinct.add(`${placed.name}@${placed.version}`);
    const base = placed.name.slice(placed.name.lastIndexOf('/') + 1);
    const license = licenseOf(seed, placed.name);
    const flags: Record<string, boolean> = {};
    if (!required.has(path)) {
      if (prodAny.has(path)) flags[devRequired.has(path) ? 'devOptional' : 'optional'] = true;
      else {
        flags['dev'] = true;
        if (!devRequired.has(path)) flags['optional'] = true;
      }
    }
    packages[path] = {
      version: placed.version,
      resolved: `${RESOLVED_BASE}/${placed.name}/-/${base}-${placed.version}.tgz`,
      integrity: `sha512-${createHash('sha512').update(`${placed.name}@${placed.version}`).digest('base64')}`,
      ...flags,
      license,
      ...(placed.dependencies ? { dependencies: sortedRecord(placed.dependencies) } : {}),
      ...(placed.optionalDependencies ? { optionalDependencies: sortedRecord(placed.optionalDependencies) } : {}),
      ...(placed.peerDependencies ? { peerDependencies: sortedRecord(placed.peerDependencies) } : {}),
    };
  }
  const lock = { name: 'scale-monorepo', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
  const files: Record<string, string> = {
    'package.json': json({ name: 'scale-monorepo', version: '1.0.0', private: true, license: 'MIT', workspaces: ['packages/*'], devDependencies: sortedRecord(rootDevRanges) }),
    // Written as npm writes it: two-space indentation, a final newline.
    'package-lock.json': json(lock),
  };
  for (const ws of workspaces) {
    const m = manifests.get(ws.dir);
    files[`${ws.dir}/package.json`] = json({
      name: ws.name,
      version: '1.0.0',
      license: 'MIT',
      ...(m && Object.keys(m.dependencies).length > 0 ? { dependencies: sortedRecord(m.dependencies) } : {}),
      ...(m && Object.keys(m.devDependencies).length > 0 ? { devDependencies: sortedRecord(m.devDependencies) } : {}),
      ...(m && Object.keys(m.optionalDependencies).length > 0 ? { optionalDependencies: sortedRecord(m.optionalDependencies) } : {}),
    });
  }
  return { files, entries: Object.keys(packages).length, registryEntries, distinct: distinct.size, nested };
}

function licenseOf(seed: number, name: string): string {
  let h = hashed(seed, `${name}#license`);
  for (const [license, share] of LICENSES) {
    if (h < share) return license;
    h -= share;
  }
  return 'MIT';
}

function sortedRecord(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** Writes the monorepo's files under `dir`. */
export function writeMonorepo(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2];
  if (dir === undefined) throw new Error('usage: tsx bench/scale-lockfile.ts <dir> [seed]');
  const started = performance.now();
  const built = scaleMonorepo(readVersions(), { seed: Number(process.argv[3] ?? 35) });
  writeMonorepo(dir, built.files);
  const bytes = Buffer.byteLength(built.files['package-lock.json'] ?? '');
  console.log(
    `${dir}: ${built.entries} lockfile entries (${built.registryEntries} registry packages, ${built.distinct} distinct name@version, ${built.nested} nested), ` +
      `${(bytes / 1e6).toFixed(1)} MB package-lock.json, built in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
