import { GraphBuilder } from '../shared/builder.js';
import type { EdgeKind, Inventory, Occurrence } from '../../model/model.js';
import { TransientAnalysisError } from '../../model/types.js';
import { dirOf, joinDir } from '../shared/paths.js';
import { underAllowed } from '../types.js';
import { effectiveModel, isInterpolated, type EffectiveModel, type Gav, type PomRef } from './effective.js';
import { licenseText, type Pom, type PomDependency } from './parse-pom.js';
import type { MavenRepository } from './registry.js';
import { resolveGraph, ResolutionLimitError, type MavenScope, type PomSource, type ResolvedGraph } from './resolve.js';
import { isRange } from './version.js';
import { JvmFileError } from './xml.js';

/**
 * The uploaded POMs as one reactor: every POM is a root (a module, never a dependency; a
 * dependency on a module is an edge between roots). With a repository, each module is resolved
 * (resolve.ts) into components and edges, and recorded `resolved`. Without one, or when resolution
 * fails (a parent or BOM missing, the repository failing, the deadline passing), nothing is
 * invented — decision for declared direct dependencies:
 * - one whose version the uploaded files state exactly (literally, through properties, or through
 *   an uploaded parent's dependencyManagement) is a fact of the upload: it becomes a component
 *   (fact `maven_resolution: declared`), with an edge from its module; its own dependencies are
 *   unknown, which the notices and the `partial_manifest_inventory` evidence say;
 * - one whose version is unknown (managed by a BOM that was not read, an unresolved `${…}`) or a
 *   range is not a component: it is listed in `service:declarations`.
 * Either way the manifest is recorded as unresolved in `service:resolutions`, with why.
 */

export interface PomFile {
  readonly path: string;
  readonly pom: Pom;
}

export interface MavenBuildOptions {
  readonly repository: MavenRepository | null;
  /** URL prefixes of the repositories an uploaded POM may declare that are searched too. */
  readonly allowedRepositories?: readonly string[];
  readonly maxPoms: number;
  readonly maxDepth: number;
  readonly deadlineMs: number;
  readonly signal?: AbortSignal;
  readonly onManifestDone: () => void;
}

const gaOf = (g: string | null, a: string): string => `${g ?? ''}:${a}`;

/** Uploaded POMs by path and by coordinates, with the repository behind them when there is one. */
function lookupOf(files: readonly PomFile[], repository: MavenRepository | null, signal: AbortSignal | undefined, extra: readonly string[] = []): PomSource {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const byGav = new Map<string, PomFile>();
  for (const f of files) {
    const g = f.pom.groupId ?? f.pom.parent?.groupId ?? '';
    const v = f.pom.version ?? f.pom.parent?.version ?? '';
    byGav.set(`${g}:${f.pom.artifactId}:${v}`, f);
  }
  const uploaded = (gav: Gav): PomRef | null => {
    const f = byGav.get(`${gav.groupId}:${gav.artifactId}:${gav.version}`);
    return f === undefined ? null : { pom: f.pom, path: f.path };
  };
  const remote = async (gav: Gav): Promise<PomRef | null> => uploaded(gav) ?? (repository === null ? null : repository.pom(gav, signal, extra));
  return {
    async parent(child: PomRef): Promise<PomRef | null> {
      const p = child.pom.parent;
      if (p === null) return null;
      if (child.path !== null && p.relativePath !== '') {
        const rel = joinDir(dirOf(child.path), p.relativePath ?? '..');
        const f = byPath.get(rel.endsWith('.xml') ? rel : rel === '' ? 'pom.xml' : `${rel}/pom.xml`);
        // Maven checks the file at relativePath is that parent before using it.
        if (f !== undefined && f.pom.artifactId === p.artifactId && (f.pom.groupId ?? f.pom.parent?.groupId) === p.groupId) return { pom: f.pom, path: f.path };
      }
      return remote(p);
    },
    bom: remote,
    pom: remote,
    versions: async (g, a) => (repository === null ? null : repository.versions(g, a, signal, extra)),
  };
}

/** Test, provided and system dependencies are not shipped with the artifact: development only. */
function notShipped(scope: string): boolean {
  return scope === 'test' || scope === 'provided' || scope === 'system';
}

function edgeKind(scope: MavenScope | null, optional: boolean): EdgeKind {
  if (scope !== null && notShipped(scope)) return 'dev';
  return optional ? 'optional' : 'prod';
}

function facts(d: Pick<PomDependency, 'type' | 'classifier'>, scope: string, extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = { maven_scope: scope, ...extra };
  if (d.type !== 'jar') out['type'] = d.type;
  if (d.classifier !== null) out['classifier'] = d.classifier;
  return out;
}

/**
 * An artifact's key and install path, as Maven prints coordinates: `group:artifact:version`, with
 * `:type[:classifier]` before the version when not a plain jar.
 */
function coordinateOf(name: string, d: Pick<PomDependency, 'type' | 'classifier'>, version: string): string {
  if (d.classifier !== null) return `${name}:${d.type}:${d.classifier}:${version}`;
  return d.type === 'jar' ? `${name}:${version}` : `${name}:${d.type}:${version}`;
}

/** Keeps the strongest scope when several modules declare one artifact: shipped wins over dev. */
function settle(o: Occurrence, dev: boolean, optional: boolean): void {
  o.dev &&= dev;
  o.optional &&= optional;
}

interface Module {
  readonly file: PomFile;
  readonly root: Occurrence;
  model: EffectiveModel;
}

function addDeclared(builder: GraphBuilder, m: Module, reactor: ReadonlyMap<string, Occurrence>): void {
  for (const d of m.model.dependencies) {
    const scope = d.scope ?? 'compile';
    const module = reactor.get(gaOf(d.groupId, d.artifactId));
    if (module !== undefined) {
      builder.edge(m.root, module, edgeKind(scope as MavenScope, d.optional), d.version);
      continue;
    }
    const name = `${d.groupId}:${d.artifactId}`;
    if (d.version === null || !isInterpolated(d.version) || isRange(d.version)) {
      builder.unresolved({ manifest: m.file.path, name, range: d.version ?? '', kind: scope, ecosystem: 'maven' });
      continue;
    }
    const dev = notShipped(scope);
    const key = coordinateOf(name, d, d.version);
    const existing = builder.get(key);
    const o = existing ?? builder.add(key, { name, version: d.version, source: 'registry', dev, optional: d.optional, facts: facts(d, scope, { maven_resolution: 'declared' }) });
    if (existing !== undefined) settle(o, dev, d.optional);
    builder.edge(m.root, o, edgeKind(scope as MavenScope, d.optional), d.version);
  }
}

function addResolved(builder: GraphBuilder, m: Module, graph: ResolvedGraph, reactor: ReadonlyMap<string, Occurrence>): void {
  const byKey = new Map<string, Occurrence>();
  for (const a of graph.artifacts.values()) {
    const name = `${a.groupId}:${a.artifactId}`;
    const module = reactor.get(name);
    if (module !== undefined) {
      byKey.set(a.key, module);
      continue;
    }
    const dev = notShipped(a.scope);
    const key = coordinateOf(name, a, a.version);
    const existing = builder.get(key);
    const o = existing ?? builder.add(key, { name, version: a.version, source: 'registry', dev, optional: a.optional, license: licenseText(a.licenses), facts: facts(a, a.scope, a.facts) });
    if (existing !== undefined) settle(o, dev, a.optional);
    byKey.set(a.key, o);
  }
  for (const key of graph.direct) {
    const a = graph.artifacts.get(key);
    const o = byKey.get(key);
    if (a !== undefined && o !== undefined) builder.edge(m.root, o, edgeKind(a.scope, a.optional), a.version);
  }
  for (const a of graph.artifacts.values()) {
    const from = byKey.get(a.key);
    if (from === undefined || reactor.get(`${a.groupId}:${a.artifactId}`) !== undefined) continue;
    for (const dep of a.dependencies) {
      const to = byKey.get(dep);
      const target = graph.artifacts.get(dep);
      if (to !== undefined && target !== undefined) builder.edge(from, to, edgeKind(target.scope, false));
    }
  }
  for (const d of graph.undetermined) builder.unresolved({ manifest: m.file.path, name: `${d.groupId}:${d.artifactId}`, range: d.version ?? '', kind: d.scope ?? 'compile', ecosystem: 'maven' });
  for (const n of graph.notices) builder.notice(`${m.file.path}: ${n}`);
}

type Failure = { readonly outcome: 'resolution_failed' | 'resolution_timeout'; readonly detail: string };

interface Online {
  readonly repository: MavenRepository;
  /** Allowed repositories the uploaded POMs declare, searched after the configured one. */
  readonly extra: readonly string[];
  /** One deadline for the whole reactor: RESOLUTION_TIMEOUT_MS bounds the analysis, not each module. */
  readonly deadline: AbortSignal;
}

async function resolveModule(m: Module, files: readonly PomFile[], options: MavenBuildOptions, online: Online): Promise<ResolvedGraph | Failure> {
  const { deadline } = online;
  const signal = options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]);
  const source = lookupOf(files, online.repository, signal, online.extra);
  try {
    const model = await effectiveModel({ pom: m.file.pom, path: m.file.path }, source);
    if (model.missing.length > 0) return { outcome: 'resolution_failed', detail: `${model.missing.join(', ')} could not be found in the repository` };
    m.model = model;
    return await resolveGraph(model, source, { maxPoms: options.maxPoms, maxDepth: options.maxDepth, signal });
  } catch (error) {
    options.signal?.throwIfAborted();
    if (deadline.aborted) return { outcome: 'resolution_timeout', detail: `the repository did not answer within ${options.deadlineMs} ms` };
    if (error instanceof TransientAnalysisError) return { outcome: 'resolution_failed', detail: 'the Maven repository could not be reached' };
    if (error instanceof ResolutionLimitError) return { outcome: 'resolution_failed', detail: error.message };
    // A parent or BOM the repository serves but this reader refuses (not XML, no artifactId…).
    if (error instanceof JvmFileError) return { outcome: 'resolution_failed', detail: `a POM from the repository could not be read: ${error.message}` };
    throw error;
  }
}

/**
 * The repositories the uploaded POMs declare (`<repositories>`, active-by-default profiles
 * included), in upload and declaration order, that the operator allows (`MAVEN_ALLOWED_REPOSITORIES`):
 * searched after the configured repository, as Maven searches a POM's repositories besides
 * central. Any other is named in a notice and never contacted: an upload does not choose where the
 * service connects. Repositories declared by dependencies' POMs are not followed.
 */
function declaredRepositories(files: readonly PomFile[], allowed: readonly string[], builder: GraphBuilder): string[] {
  const out: string[] = [];
  for (const f of files) {
    for (const r of f.pom.repositories) {
      const url = r.url.trim().replace(/\/+$/, '');
      if (url.includes('${') || !/^https?:\/\//i.test(url)) continue;
      if (underAllowed(url, allowed)) {
        if (!out.includes(url)) out.push(url);
      } else {
        builder.notice(`${f.path} declares the repository ${r.id === null ? '' : `${r.id} `}${url}, which is not among the allowed ones (MAVEN_ALLOWED_REPOSITORIES): it was not searched`);
      }
    }
  }
  return out;
}

/** `<modules>` naming a directory whose pom.xml was not uploaded: that module is not in the inventory. */
function moduleNotices(files: readonly PomFile[], builder: GraphBuilder): void {
  const paths = new Set(files.map((f) => f.path));
  for (const f of files) {
    const missing = f.pom.modules.filter((m) => {
      const path = joinDir(dirOf(f.path), m);
      return !paths.has(path.endsWith('.xml') ? path : path === '' ? 'pom.xml' : `${path}/pom.xml`);
    });
    if (missing.length > 0) builder.notice(`${f.path} lists module(s) whose POM was not uploaded, so they are not in the inventory: ${missing.slice(0, 10).join(', ')}`);
  }
}

export async function buildMaven(files: readonly PomFile[], options: MavenBuildOptions): Promise<Inventory> {
  const top = [...files].sort((a, b) => a.path.split('/').length - b.path.split('/').length || (a.path < b.path ? -1 : 1))[0];
  const builder = new GraphBuilder(top?.path ?? 'pom.xml', 'maven');
  const offline = lookupOf(files, null, options.signal);
  const reactor = new Map<string, Occurrence>();
  const modules: Module[] = [];
  for (const file of files) {
    const model = await effectiveModel({ pom: file.pom, path: file.path }, offline);
    const dir = dirOf(file.path);
    const root = builder.root(dir === '' ? '.' : dir, {
      name: gaOf(model.groupId, model.artifactId),
      version: model.version !== null && isInterpolated(model.version) ? model.version : null,
      source: file === top ? 'root' : 'workspace',
      installPath: dir,
      license: licenseText(model.licenses),
      facts: { packaging: file.pom.packaging },
    });
    reactor.set(root.name, root);
    modules.push({ file, root, model });
  }
  moduleNotices(files, builder);
  const extra = declaredRepositories(files, options.allowedRepositories ?? [], builder);
  const online = options.repository === null ? null : { repository: options.repository, extra, deadline: AbortSignal.timeout(options.deadlineMs) };
  for (const m of modules) {
    options.signal?.throwIfAborted();
    const role = m.file === top ? 'root' : 'workspace';
    const result: ResolvedGraph | Failure =
      online === null
        ? { outcome: 'resolution_failed', detail: 'no Maven repository is configured; only the declared direct dependencies are listed' }
        : await resolveModule(m, files, options, online);
    if ('artifacts' in result) {
      addResolved(builder, m, result, reactor);
      builder.manifest(m.file.path, 'resolved', null, role);
    } else {
      addDeclared(builder, m, reactor);
      builder.manifest(m.file.path, result.outcome, result.detail, role);
    }
    options.onManifestDone();
  }
  // Scopes from the graph as well as Maven's: what only an optional dependency brings is optional
  // too, and what no shipped path reaches stays development-only.
  return builder.finish(null, 'graph');
}
