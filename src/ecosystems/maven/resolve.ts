import { effectiveModel, isInterpolated, managementKey, type EffectiveModel, type Gav, type ModelLookup, type PomRef } from './effective.js';
import type { Exclusion, PomDependency, PomLicense } from './parse-pom.js';
import { highestInRange, isRange } from './version.js';
import { JvmFileError } from './xml.js';

/**
 * Maven's dependency graph, by Maven's own rules
 * (https://maven.apache.org/guides/introduction/introduction-to-dependency-mechanism.html), over a
 * POM source (so it is tested without HTTP). No maintained npm library resolves Maven graphs, so
 * it is written here:
 * - breadth first from the project's dependencies: the nearest declaration of an artifact wins,
 *   and at equal depth the first one met (declaration order) — the same winner Maven's
 *   depth-first collection with "nearest wins" picks;
 * - scopes propagate per the documentation's table (see `derive`); provided, test and system
 *   dependencies of a dependency are not transitive, nor are optional ones;
 * - exclusions (`*` wildcards too) apply to the whole subtree below the declaration;
 * - the project's dependencyManagement overrides versions and scopes of transitive dependencies
 *   (a managed scope replaces the derived one; whether a dependency is transitive at all is what
 *   its own POM declares);
 * - version ranges take the highest matching release in maven-metadata.xml; a plain version is a
 *   soft requirement, used as written;
 * - a winner reached by several paths takes the widest scope among them (Maven's scope selector);
 *   the direct declaration's scope always stands.
 * A dependency whose POM is missing stays (Maven warns and uses the artifact) without transitives.
 */

export type MavenScope = 'compile' | 'runtime' | 'provided' | 'test' | 'system';

export interface PomSource extends ModelLookup {
  /** A dependency's POM; null when the repository has none. */
  pom(gav: Gav): Promise<PomRef | null>;
  /** The versions maven-metadata.xml lists; null when it is missing. */
  versions(groupId: string, artifactId: string): Promise<readonly string[] | null>;
}

export interface ResolveLimits {
  readonly maxPoms: number;
  readonly maxDepth: number;
  readonly signal?: AbortSignal;
}

export interface ResolvedArtifact {
  readonly key: string;
  readonly groupId: string;
  readonly artifactId: string;
  readonly version: string;
  readonly type: string;
  readonly classifier: string | null;
  scope: MavenScope;
  readonly optional: boolean;
  readonly depth: number;
  licenses: readonly PomLicense[];
  /** Conflict keys of the artifacts it depends on (winners). */
  readonly dependencies: string[];
  /** What the document should say of it: `relocated_from`, `snapshot_build`. */
  readonly facts: Readonly<Record<string, string>>;
}

export interface ResolvedGraph {
  /** In the order they were selected (breadth first). */
  readonly artifacts: ReadonlyMap<string, ResolvedArtifact>;
  /** Conflict keys of the project's own dependencies. */
  readonly direct: readonly string[];
  /** The project's own dependencies no version could be found for (listed as declarations). */
  readonly undetermined: readonly PomDependency[];
  readonly notices: readonly string[];
}

const WIDTH: Readonly<Record<MavenScope, number>> = { compile: 5, runtime: 4, provided: 3, system: 2, test: 1 };

function scopeOf(s: string | null): MavenScope {
  return s === 'runtime' || s === 'provided' || s === 'test' || s === 'system' ? s : 'compile';
}

/** The documentation's table: the scope a transitive dependency gets under its dependent's scope. */
export function derive(parent: MavenScope, declared: MavenScope): MavenScope | null {
  if (declared !== 'compile' && declared !== 'runtime') return null;
  if (parent === 'compile') return declared;
  if (parent === 'system') return null;
  if (parent === 'runtime') return 'runtime';
  return parent;
}

export function excludedBy(d: Pick<Exclusion, 'groupId' | 'artifactId'>, exclusions: readonly Exclusion[]): boolean {
  return exclusions.some((e) => (e.groupId === '*' || e.groupId === d.groupId) && (e.artifactId === '*' || e.artifactId === d.artifactId));
}

interface Pending {
  readonly dep: PomDependency;
  readonly declared: MavenScope;
  /** The project's dependencyManagement scope for it: it replaces the derived one. */
  readonly managedScope?: MavenScope;
  readonly depth: number;
  readonly exclusions: readonly Exclusion[];
  readonly from: ResolvedArtifact | null;
}

interface Incoming {
  readonly from: ResolvedArtifact;
  readonly declared: MavenScope;
}

export class ResolutionLimitError extends JvmFileError {}

export async function resolveGraph(root: EffectiveModel, source: PomSource, limits: ResolveLimits): Promise<ResolvedGraph> {
  const artifacts = new Map<string, ResolvedArtifact>();
  const incoming = new Map<string, Incoming[]>();
  const notices: string[] = [];
  const direct: string[] = [];
  const undetermined: PomDependency[] = [];
  const fixed = new Set<string>();
  const queue: Pending[] = root.dependencies.map((dep) => ({ dep, declared: scopeOf(dep.scope), depth: 1, exclusions: dep.exclusions, from: null }));
  let poms = 0;
  let prefetched = 0;
  for (let head = 0; head < queue.length; head++) {
    limits.signal?.throwIfAborted();
    const node = queue[head];
    if (node === undefined) continue;
    const { dep } = node;
    const key = managementKey(dep);
    const winner = artifacts.get(key);
    if (winner !== undefined) {
      if (node.from !== null) {
        if (!node.from.dependencies.includes(key)) node.from.dependencies.push(key);
        incoming.get(key)?.push({ from: node.from, declared: node.declared });
      }
      continue;
    }
    const version = await versionOf(dep, source, notices);
    if (version === null) {
      if (node.from === null) undetermined.push(dep);
      continue;
    }
    const scope = node.from === null ? node.declared : (node.managedScope ?? derive(node.from.scope, node.declared));
    if (scope === null) continue;
    // The POM first (a system dependency is a file on the building machine: no POM, no
    // transitives; past the depth limit it is not read): it may relocate the artifact.
    const deep = node.depth >= limits.maxDepth;
    let found: Found = { gav: { groupId: dep.groupId, artifactId: dep.artifactId, version }, pom: null, relocatedFrom: null };
    if (scope !== 'system' && !deep) {
      if (++poms > limits.maxPoms) throw new ResolutionLimitError('limit_exceeded', `more than ${limits.maxPoms} POMs would be read`);
      found = await followRelocations(found.gav, source, notices);
    }
    const target: PomDependency = found.relocatedFrom === null ? dep : { ...dep, groupId: found.gav.groupId, artifactId: found.gav.artifactId };
    const targetKey = managementKey(target);
    if (targetKey !== key) {
      const existing = artifacts.get(targetKey);
      if (existing !== undefined) {
        // Relocated onto an artifact already selected: a path to that one.
        if (node.from === null) direct.push(targetKey);
        else if (!node.from.dependencies.includes(targetKey)) node.from.dependencies.push(targetKey);
        if (node.from !== null) incoming.get(targetKey)?.push({ from: node.from, declared: node.declared });
        continue;
      }
    }
    const artifact: ResolvedArtifact = {
      key: targetKey,
      groupId: target.groupId,
      artifactId: target.artifactId,
      version: found.gav.version,
      type: dep.type,
      classifier: dep.classifier,
      scope,
      optional: node.from === null && dep.optional,
      depth: node.depth,
      licenses: [],
      dependencies: [],
      facts: {
        ...(found.relocatedFrom === null ? {} : { relocated_from: found.relocatedFrom }),
        ...(found.pom?.build === undefined ? {} : { snapshot_build: found.pom.build }),
      },
    };
    artifacts.set(targetKey, artifact);
    incoming.set(targetKey, node.from === null ? [] : [{ from: node.from, declared: node.declared }]);
    // A direct dependency's scope, or one the project manages, is not widened by other paths.
    if (node.from === null || node.managedScope !== undefined) fixed.add(targetKey);
    if (node.from === null) direct.push(targetKey);
    else node.from.dependencies.push(targetKey);
    if (scope === 'system') continue;
    const gav = found.gav;
    if (deep) {
      notices.push(`${dep.groupId}:${dep.artifactId}:${version} is ${node.depth} levels deep: its dependencies were not followed (depth limit ${limits.maxDepth})`);
      continue;
    }
    let model: EffectiveModel;
    try {
      if (found.pom === null) {
        if (found.unreadable === true) continue;
        notices.push(`the POM of ${gav.groupId}:${gav.artifactId}:${gav.version} is missing from the repository: its dependencies are unknown`);
        continue;
      }
      model = await effectiveModel(found.pom, source);
    } catch (error) {
      if (!(error instanceof JvmFileError)) throw error;
      notices.push(`the POM of ${gav.groupId}:${gav.artifactId}:${gav.version} could not be read (${error.message}): its dependencies are unknown`);
      continue;
    }
    artifact.licenses = model.licenses;
    if (model.missing.length > 0) notices.push(`${gav.groupId}:${gav.artifactId}:${gav.version}: ${model.missing.join(', ')} missing from the repository`);
    const below = [...node.exclusions];
    for (const d of model.dependencies) {
      if (d.optional || excludedBy(d, below)) continue;
      const managed = root.managed.get(managementKey(d));
      // What the dependency's POM declares decides transitivity; management then sets the scope.
      const declared = scopeOf(d.scope);
      if (declared !== 'compile' && declared !== 'runtime') continue;
      const managedScope = managed?.scope === null || managed?.scope === undefined ? undefined : scopeOf(managed.scope);
      const version = managed?.version ?? d.version;
      const child: PomDependency = { ...d, version, exclusions: managed === undefined ? d.exclusions : [...d.exclusions, ...managed.exclusions] };
      queue.push({ dep: child, declared, ...(managedScope === undefined ? {} : { managedScope }), depth: node.depth + 1, exclusions: [...below, ...child.exclusions], from: artifact });
      // Ask for the POMs of the next level now, in parallel; the walk reads them in order later.
      if (version !== null && isInterpolated(version) && !isRange(version) && !artifacts.has(managementKey(child)) && prefetched++ < limits.maxPoms) {
        source.pom({ groupId: child.groupId, artifactId: child.artifactId, version }).catch(() => undefined);
      }
    }
  }
  widenScopes(artifacts, incoming, fixed);
  return { artifacts, direct, undetermined, notices };
}

interface Found {
  readonly gav: Gav;
  readonly pom: PomRef | null;
  /** `group:artifact:version` as declared, when a relocation moved it. */
  readonly relocatedFrom: string | null;
  /** The POM was there but could not be read (already noted). */
  readonly unreadable?: boolean;
}

const MAX_RELOCATIONS = 4;

/**
 * The POM of `gav`, following `<distributionManagement><relocation>` as Maven does: the artifact
 * is the one it moved to (an absent part of the relocation keeps the original's), a few hops at most.
 */
async function followRelocations(declared: Gav, source: PomSource, notices: string[]): Promise<Found> {
  let gav = declared;
  let pom: PomRef | null;
  const name = (g: Gav): string => `${g.groupId}:${g.artifactId}:${g.version}`;
  for (let hop = 0; ; hop++) {
    try {
      pom = await source.pom(gav);
    } catch (error) {
      // A POM this reader refuses: the artifact stays, its dependencies unknown (said below).
      if (!(error instanceof JvmFileError)) throw error;
      notices.push(`the POM of ${name(gav)} could not be read (${error.message}): its dependencies are unknown`);
      return { gav, pom: null, relocatedFrom: gav === declared ? null : name(declared), unreadable: true };
    }
    const to = pom?.pom.relocation;
    if (pom === null || to === undefined || to === null) break;
    const next = { groupId: to.groupId ?? gav.groupId, artifactId: to.artifactId ?? gav.artifactId, version: to.version ?? gav.version };
    if (name(next) === name(gav)) break;
    if (hop >= MAX_RELOCATIONS) {
      notices.push(`${name(declared)}: more than ${MAX_RELOCATIONS} relocations; the last one read is used`);
      break;
    }
    notices.push(`${name(gav)} is relocated to ${name(next)}${to.message === null ? '' : ` (${to.message})`}`);
    gav = next;
  }
  return { gav, pom, relocatedFrom: gav === declared ? null : name(declared) };
}

async function versionOf(dep: PomDependency, source: PomSource, notices: string[]): Promise<string | null> {
  const spec = dep.version;
  const name = `${dep.groupId}:${dep.artifactId}`;
  if (spec === null || !isInterpolated(spec)) {
    notices.push(`${name} has no version that could be determined${spec === null ? '' : ` (${spec})`}`);
    return null;
  }
  if (!isRange(spec)) return spec;
  let versions: readonly string[] | null;
  try {
    versions = await source.versions(dep.groupId, dep.artifactId);
  } catch (error) {
    if (!(error instanceof JvmFileError)) throw error;
    notices.push(`${name}: maven-metadata.xml could not be read (${error.message})`);
    return null;
  }
  const chosen = versions === null ? null : highestInRange(spec, versions);
  if (chosen === null) notices.push(`${name}: no release in ${spec}${versions === null ? ' (maven-metadata.xml is missing)' : ''}`);
  return chosen;
}

/** A winner reached by several paths gets the widest scope they give; repeated until nothing changes. */
function widenScopes(artifacts: ReadonlyMap<string, ResolvedArtifact>, incoming: ReadonlyMap<string, readonly Incoming[]>, fixed: ReadonlySet<string>): void {
  for (let changed = true, rounds = 0; changed && rounds <= 4 * artifacts.size; rounds++) {
    changed = false;
    for (const a of artifacts.values()) {
      if (fixed.has(a.key)) continue;
      for (const { from, declared } of incoming.get(a.key) ?? []) {
        const s = derive(from.scope, declared);
        if (s !== null && WIDTH[s] > WIDTH[a.scope]) {
          a.scope = s;
          changed = true;
        }
      }
    }
  }
}
