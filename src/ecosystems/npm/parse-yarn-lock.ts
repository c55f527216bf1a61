import { newerFormatNotice } from '../shared/format-version.js';
import type * as YarnParsers from '@yarnpkg/parsers';
import picomatch from 'picomatch';
import { declaredDependencies, type Manifest } from './manifest.js';
import type { EdgeKind, Occurrence } from '../../model/model.js';
import { checkIndentationDepth, StructureBounds } from '../../model/safe-parse.js';
import type { GraphBuilder } from '../shared/builder.js';
import {
  aliasTarget,
  classifySpec,
  isObject,
  normalizeRelative,
  npmGraph,
  projectOccurrence,
  splitDescriptor,
  stringRecord,
  text,
  type Coverage,
  type ParseContext,
  type ParsedLockfile,
} from './common.js';
import { lazily, requirePackage, semver } from '../../model/lazy-require.js';

const yarnParsers = lazily(() => requirePackage('@yarnpkg/parsers') as typeof YarnParsers);

/**
 * yarn.lock, classic (v1) and berry (v2+, `__metadata`), parsed with @yarnpkg/parsers. An entry
 * is keyed by the descriptors (`name@range`) it satisfies; dependencies are descriptors too, so
 * each edge points at the exact entry. Yarn does not record dev/optional: they are derived.
 */

interface YarnEntry {
  readonly version?: string;
  readonly resolved?: string;
  readonly resolution?: string;
  readonly integrity?: string;
  readonly checksum?: string;
  readonly dependencies?: unknown;
  readonly optionalDependencies?: unknown;
  readonly peerDependencies?: unknown;
  readonly dependenciesMeta?: unknown;
  readonly peerDependenciesMeta?: unknown;
  readonly languageName?: string;
  readonly linkType?: string;
}

export function isYarnLock(content: string): boolean {
  return /^# yarn lockfile v1/m.test(content) || /^__metadata:\s*$/m.test(content);
}

/** The package name of a berry locator or descriptor: `lodash@npm:4.17.21` → lodash. */
function locatorName(locator: string): string {
  return splitDescriptor(locator)[0];
}

/** Version of a berry `patch:` source descriptor, e.g. `fsevents@npm%3A2.3.3` → its decoded descriptor. */
function patchSource(descriptor: string): string | null {
  const match = /^(?:@[^/]+\/)?[^@]+@patch:(.+?)#/.exec(descriptor);
  return match?.[1] ? decodeURIComponent(match[1]) : null;
}

function berryResolved(resolution: string): { source: Occurrence['source']; resolved: string | null } {
  const [, range] = splitDescriptor(resolution);
  if (range.startsWith('npm:')) return { source: 'registry', resolved: null };
  if (range.startsWith('workspace:')) return { source: 'workspace', resolved: null };
  if (range.startsWith('patch:')) return { source: 'registry', resolved: null };
  if (range.startsWith('link:') || range.startsWith('portal:')) return { source: 'link', resolved: range };
  if (range.startsWith('file:')) return { source: 'file', resolved: range };
  return { source: classifySpec(range), resolved: range };
}

/** The newest berry `__metadata.version` this reader has seen written (Yarn 4). */
const NEWEST_BERRY_METADATA = 10;

export function parseYarnLock(ctx: ParseContext, content: string): ParsedLockfile {
  checkIndentationDepth(ctx.path, content);
  const parsedData: unknown = yarnParsers().parseSyml(content);
  const data = isObject(parsedData) ? parsedData : {};
  const bounds = new StructureBounds(ctx.path);
  bounds.entries(Object.keys(data).length);
  const berry = isObject(data['__metadata']);
  const metaVersion = berry ? (data['__metadata'] as Record<string, unknown>)['version'] : 1;
  const metadataVersion = typeof metaVersion === 'string' || typeof metaVersion === 'number' ? String(metaVersion) : null;
  const graph = npmGraph(ctx);
  const byDescriptor = new Map<string, Occurrence>();
  const entries = new Map<Occurrence, YarnEntry>();
  const covers: Coverage[] = [];
  const workspaceByName = new Map<string, Occurrence>();
  const patches = new Map<string, Occurrence>();

  for (const [key, value] of Object.entries(data)) {
    if (key === '__metadata' || !isObject(value)) continue;
    bounds.key(key);
    const entry = textFields(value);
    const descriptors = key.split(/\s*,\s*/).map((d) => d.replace(/^"|"$/g, ''));
    const first = descriptors[0] ?? key;
    let o: Occurrence;
    if (berry && entry.resolution !== undefined) {
      const { source, resolved } = berryResolved(entry.resolution);
      if (source === 'workspace') {
        const rel = normalizeRelative(splitDescriptor(entry.resolution)[1].slice('workspace:'.length)) ?? '';
        o = projectOccurrence(graph, ctx, rel, rel, rel === '' ? 'root' : 'workspace', locatorName(entry.resolution));
        covers.push({ dir: rel, role: rel === '' ? 'root' : 'workspace' });
        workspaceByName.set(o.name, o);
      } else {
        const installedAs = splitDescriptor(first)[0];
        const name = locatorName(entry.resolution);
        const facts: Record<string, string> = {};
        if (entry.checksum !== undefined) facts['yarn-checksum'] = entry.checksum;
        const source2 = patchSource(first);
        if (source2 !== null) facts['patch'] = splitDescriptor(entry.resolution)[1];
        o = graph.add(key, {
          name,
          version: entry.version ?? null,
          alias: installedAs !== name ? installedAs : null,
          source,
          resolved,
          // Berry's checksum is of its own zip archive, not of the package tarball: kept as a fact.
          integrity: null,
          facts,
        });
        if (source2 !== null) patches.set(source2, o);
      }
    } else {
      const [installedAs, range] = splitDescriptor(first);
      const alias = aliasTarget(range);
      const name = alias?.[0] ?? installedAs;
      o = graph.add(key, {
        name,
        version: entry.version ?? null,
        alias: alias ? installedAs : null,
        source: entry.resolved !== undefined ? classifySpec(entry.resolved) : classifySpec(range),
        resolved: entry.resolved ?? null,
        integrity: entry.integrity ?? classicSha1(entry.resolved),
      });
    }
    entries.set(o, entry);
    for (const d of descriptors) byDescriptor.set(d, o);
  }

  // Classic yarn does not list the projects themselves: they come from the uploaded manifests.
  if (!berry) addClassicProjects(graph, ctx, covers, workspaceByName);

  const lookup = (name: string, range: string): Occurrence | undefined => {
    const descriptor = `${name}@${range}`;
    const direct = byDescriptor.get(descriptor);
    if (range.startsWith('workspace:') || (direct === undefined && workspaceByName.has(name))) return workspaceByName.get(name) ?? direct;
    if (direct === undefined) return undefined;
    // Yarn installs the patched build of packages it patches (fsevents, typescript, resolve).
    return patches.get(descriptor) ?? direct;
  };

  const peers = new PeerIndex(graph.occurrences);
  for (const [o, entry] of entries) {
    const meta = isObject(entry.dependenciesMeta) ? entry.dependenciesMeta : {};
    const declared: [string, string, EdgeKind][] = [
      ...Object.entries(stringRecord(entry.optionalDependencies)).map(([n, r]): [string, string, EdgeKind] => [n, r, 'optional']),
      ...Object.entries(stringRecord(entry.dependencies)).map(([n, r]): [string, string, EdgeKind] => [
        n,
        r,
        isTrue(isObject(meta[n]) ? meta[n]['optional'] : undefined) ? 'optional' : 'prod',
      ]),
    ];
    const peerRanges = stringRecord(entry.peerDependencies);
    bounds.edges(o.installPath, declared.length + Object.keys(peerRanges).length);
    for (const [depName, range, kind] of declared) {
      const dependency = lookup(depName, range);
      if (dependency) graph.edge(o, dependency, kind, berry ? range.replace(/^npm:/, '') : range);
      else if (kind !== 'optional') graph.notice(`${ctx.path}: ${o.name}@${o.version ?? '?'} requires ${depName}@${range}, which the lockfile does not contain`);
    }
    const peerMeta = isObject(entry.peerDependenciesMeta) ? entry.peerDependenciesMeta : {};
    for (const [name, range] of Object.entries(peerRanges)) {
      const only = peers.only(name, range);
      if (only) graph.edge(o, only, isTrue(isObject(peerMeta[name]) ? peerMeta[name]['optional'] : undefined) ? 'peerOptional' : 'peer', range);
    }
    const patched = patchSource(o.installPath.split(/\s*,\s*/)[0] ?? '');
    const base = patched === null ? undefined : byDescriptor.get(patched);
    if (base) graph.edge(o, base, 'prod');
  }

  // Projects' own declarations: dev dependencies are known only from manifests in classic yarn.
  for (const project of graph.occurrences) {
    if (!graph.isRoot(project)) continue;
    const manifest = manifestOf(ctx, project);
    if (!manifest) continue;
    const entry = entries.get(project);
    const position = new Map(project.dependencies.map((e, i) => [e.ref, i]));
    for (const d of declaredDependencies(manifest)) {
      const range = berry && !/^[a-z]+:/.test(d.range) ? `npm:${d.range}` : d.range;
      const dependency = lookup(d.name, range) ?? (berry ? lookup(d.name, d.range) : undefined);
      const at = dependency === undefined ? undefined : position.get(dependency.ref);
      const already = at === undefined ? undefined : project.dependencies[at];
      if (at !== undefined && already) {
        // The manifest knows what the lockfile's project entry does not: dev and peer status.
        if (d.kind === 'dev' || d.kind === 'optional') project.dependencies[at] = { ...already, kind: d.kind };
        continue;
      }
      if (dependency) {
        graph.edge(project, dependency, d.kind, d.range);
        if (project.dependencies.at(-1)?.ref === dependency.ref) position.set(dependency.ref, project.dependencies.length - 1);
      }
      else if ((d.kind === 'prod' || d.kind === 'dev') && entry === undefined) {
        graph.unresolved({ manifest: manifest.path, name: d.name, range: d.range, kind: d.field });
      }
    }
  }

  // Yarn rewrites an older berry lockfile and refuses none it can parse; a newer cache version is read as the newest known, said.
  if (berry && Number(metadataVersion) > NEWEST_BERRY_METADATA) {
    graph.notice(newerFormatNotice(ctx.path, 'yarn.lock', metadataVersion ?? '', String(NEWEST_BERRY_METADATA)));
  }
  // Yarn records no dev/optional flags: they are derived from the graph.
  return { inventory: graph.finish({ kind: berry ? 'yarn-berry' : 'yarn-classic', version: metadataVersion, scopes: 'graph' }), covers };
}

function manifestOf(ctx: ParseContext, project: Occurrence): Manifest | undefined {
  return ctx.manifests.get(project.installPath);
}

/** The syml parser gives scalars as text: `optional: true` may arrive as "true". */
function isTrue(value: unknown): boolean {
  return value === true || value === 'true';
}

/** Classic yarn.lock resolved URLs end in `#<sha1 of the tarball>`: a checksum of the same tarball. */
function classicSha1(resolved: string | undefined): string | null {
  const hex = /#([0-9a-f]{40})$/.exec(resolved ?? '')?.[1];
  return hex ? `sha1-${Buffer.from(hex, 'hex').toString('base64')}` : null;
}

/** The root manifest, and the workspace members its `workspaces` globs select. */
function addClassicProjects(graph: GraphBuilder, ctx: ParseContext, covers: Coverage[], workspaceByName: Map<string, Occurrence>): void {
  const rootManifest = ctx.manifests.get('');
  projectOccurrence(graph, ctx, '', '', 'root', rootManifest?.name ?? 'root');
  covers.push({ dir: '', role: 'root' });
  const globs = rootManifest?.workspaces ?? [];
  if (globs.length === 0) return;
  const isMember = picomatch(globs.map((g) => g.replace(/\/+$/, '')));
  for (const dir of [...ctx.manifests.keys()].sort()) {
    if (dir === '' || !isMember(dir)) continue;
    const member = projectOccurrence(graph, ctx, dir, dir, 'workspace', dir);
    covers.push({ dir, role: 'workspace' });
    workspaceByName.set(member.name, member);
  }
}

/**
 * Peers are satisfied by the parent's tree, which a lockfile does not record: the one entry of
 * that name whose version satisfies the range, if exactly one does. Entries are indexed by name
 * and answers cached per (name, range), so many peers cost no scan of the whole lockfile each.
 */
class PeerIndex {
  private readonly byName = new Map<string, Occurrence[]>();
  private readonly answers = new Map<string, Occurrence | null>();

  constructor(occurrences: readonly Occurrence[]) {
    for (const o of occurrences) {
      if (o.version === null || semver().valid(o.version) === null) continue;
      const list = this.byName.get(o.name);
      if (list) list.push(o);
      else this.byName.set(o.name, [o]);
    }
  }

  only(name: string, range: string): Occurrence | null {
    const key = `${name}\0${range}`;
    const known = this.answers.get(key);
    if (known !== undefined) return known;
    let found: Occurrence | null = null;
    let count = 0;
    for (const c of this.byName.get(name) ?? []) {
      if (c.version !== null && semver().satisfies(c.version, range, { includePrerelease: true })) {
        found = c;
        if (++count > 1) break;
      }
    }
    const answer = count === 1 ? found : null;
    this.answers.set(key, answer);
    return answer;
  }
}

/** The entry's text fields kept only when they are text (the syml parser may give anything). */
function textFields(value: Record<string, unknown>): YarnEntry {
  const keep = (field: string): { [field: string]: string } => {
    const v = text(value[field]);
    return v === null ? {} : { [field]: v };
  };
  return {
    ...keep('version'),
    ...keep('resolved'),
    ...keep('resolution'),
    ...keep('integrity'),
    ...keep('checksum'),
    ...keep('languageName'),
    ...keep('linkType'),
    dependencies: value['dependencies'],
    optionalDependencies: value['optionalDependencies'],
    peerDependencies: value['peerDependencies'],
    dependenciesMeta: value['dependenciesMeta'],
    peerDependenciesMeta: value['peerDependenciesMeta'],
  };
}
