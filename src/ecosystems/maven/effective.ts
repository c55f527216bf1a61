import type { Pom, PomDependency, PomLicense } from './parse-pom.js';

/**
 * The effective model of a POM, as Maven builds it (https://maven.apache.org/ref/current/maven-model-builder/):
 * parent inheritance first (coordinates, properties, dependencies, dependencyManagement, licenses),
 * then `${…}` interpolation over the merged model, then BOM imports into dependencyManagement,
 * then management applied to the model's own dependencies. Environment (`env.*`) and system
 * properties are never read: they belong to the machine that builds. What cannot be found (a
 * parent or a BOM) is named in `missing`; the caller decides what that means (offline: versions
 * unknown; resolving: the manifest is unresolved).
 */

export interface Gav {
  readonly groupId: string;
  readonly artifactId: string;
  readonly version: string;
}

/** A POM with where it was read from (an upload path), null for the repository. */
export interface PomRef {
  readonly pom: Pom;
  readonly path: string | null;
  /** A snapshot's timestamped build the repository served (`1.0-20240101.120000-3`). */
  readonly build?: string;
}

export interface ModelLookup {
  /** The parent POM of `child`; null when it cannot be found. */
  parent(child: PomRef): Promise<PomRef | null>;
  /** An imported BOM; null when it cannot be found. */
  bom(gav: Gav): Promise<PomRef | null>;
}

export interface EffectiveModel {
  readonly groupId: string | null;
  readonly artifactId: string;
  readonly version: string | null;
  readonly properties: ReadonlyMap<string, string>;
  /** Management applied; a version still null (or still `${…}`) is unknown. */
  readonly dependencies: readonly PomDependency[];
  /** By management key `group:artifact:type:classifier`, the BOMs' entries included. */
  readonly managed: ReadonlyMap<string, PomDependency>;
  /** The artifact's own licenses, else the nearest ancestor's. */
  readonly licenses: readonly PomLicense[];
  /** Parents and BOMs that could not be found, as `group:artifact:version`. */
  readonly missing: readonly string[];
}

export const MAX_PARENT_DEPTH = 32;
const MAX_INTERPOLATION_DEPTH = 16;

export function managementKey(d: Pick<PomDependency, 'groupId' | 'artifactId' | 'type' | 'classifier'>): string {
  return `${d.groupId}:${d.artifactId}:${d.type}:${d.classifier ?? ''}`;
}

/** `${…}` left after interpolation: the value is not known. */
export function isInterpolated(value: string): boolean {
  return !value.includes('${');
}

type Resolver = (expr: string) => string | null;

/** Replaces every `${expr}` it can resolve, recursively (bounded); unknown ones stay as written. */
export function interpolate(value: string, resolve: Resolver, depth = 0): string {
  if (!value.includes('${') || depth > MAX_INTERPOLATION_DEPTH) return value;
  return value.replace(/\$\{([^${}]+)\}/g, (whole, expr: string) => {
    const v = resolve(expr.trim());
    return v === null ? whole : interpolate(v, resolve, depth + 1);
  });
}

interface Chain {
  readonly refs: readonly PomRef[];
  readonly missing: string[];
}

/** The POM and its ancestors, child first; stops at a missing parent, a cycle or the depth bound. */
async function chainOf(start: PomRef, lookup: ModelLookup): Promise<Chain> {
  const refs: PomRef[] = [start];
  const missing: string[] = [];
  const seen = new Set<string>();
  let current = start;
  while (current.pom.parent !== null && refs.length <= MAX_PARENT_DEPTH) {
    const p = current.pom.parent;
    const key = `${p.groupId}:${p.artifactId}:${p.version}`;
    if (seen.has(key)) break;
    seen.add(key);
    const parent = await lookup.parent(current);
    if (parent === null) {
      missing.push(key);
      break;
    }
    refs.push(parent);
    current = parent;
  }
  return { refs, missing };
}

function modelResolver(chain: readonly PomRef[], properties: ReadonlyMap<string, string>): Resolver {
  const child = chain[0]?.pom;
  const inherited = (pick: (p: Pom) => string | null): string | null => {
    for (const ref of chain) {
      const v = pick(ref.pom);
      if (v !== null) return v;
    }
    return null;
  };
  return (expr) => {
    const field = /^(?:project|pom)\.(.+)$/.exec(expr)?.[1];
    if (field !== undefined && child !== undefined) {
      switch (field) {
        case 'groupId':
          return inherited((p) => p.groupId ?? p.parent?.groupId ?? null);
        case 'version':
          return inherited((p) => p.version ?? p.parent?.version ?? null);
        case 'artifactId':
          return child.artifactId;
        case 'packaging':
          return child.packaging;
        case 'name':
          return child.name;
        case 'parent.groupId':
          return child.parent?.groupId ?? null;
        case 'parent.artifactId':
          return child.parent?.artifactId ?? null;
        case 'parent.version':
          return child.parent?.version ?? null;
        default:
          break;
      }
    }
    if (expr.startsWith('env.')) return null;
    return properties.get(expr) ?? null;
  };
}

function interpolateDependency(d: PomDependency, resolve: Resolver): PomDependency {
  const f = (s: string): string => interpolate(s, resolve);
  return {
    ...d,
    groupId: f(d.groupId),
    artifactId: f(d.artifactId),
    version: d.version === null ? null : f(d.version),
    type: f(d.type),
    classifier: d.classifier === null ? null : f(d.classifier),
    scope: d.scope === null ? null : f(d.scope),
    exclusions: d.exclusions.map((e) => ({ groupId: f(e.groupId), artifactId: f(e.artifactId) })),
  };
}

/** Applies management to a declared dependency: version and scope when absent, exclusions added. */
export function manage(d: PomDependency, managed: ReadonlyMap<string, PomDependency>): PomDependency {
  const m = managed.get(managementKey(d));
  if (m === undefined) return d;
  return {
    ...d,
    version: d.version ?? m.version,
    scope: d.scope ?? m.scope,
    exclusions: m.exclusions.length === 0 ? d.exclusions : [...d.exclusions, ...m.exclusions],
  };
}

export interface EffectiveOptions {
  /** BOMs already being imported (a BOM importing itself through others stops here). */
  readonly importing?: ReadonlySet<string>;
}

export async function effectiveModel(start: PomRef, lookup: ModelLookup, options: EffectiveOptions = {}): Promise<EffectiveModel> {
  const { refs, missing } = await chainOf(start, lookup);
  const properties = new Map<string, string>();
  for (let i = refs.length - 1; i >= 0; i--) for (const [k, v] of refs[i]?.pom.properties ?? []) properties.set(k, v);
  const resolve = modelResolver(refs, properties);
  // Dependencies: the ancestors' first, a child's declaration of the same key replacing it.
  const byKey = new Map<string, PomDependency>();
  for (let i = refs.length - 1; i >= 0; i--) for (const d of refs[i]?.pom.dependencies ?? []) byKey.set(managementKey(d), d);
  const managedRaw: PomDependency[] = [];
  const seenManaged = new Set<string>();
  for (const ref of refs) {
    for (const d of ref.pom.dependencyManagement) {
      const k = managementKey(d);
      if (seenManaged.has(k)) continue;
      seenManaged.add(k);
      managedRaw.push(d);
    }
  }
  const managed = new Map<string, PomDependency>();
  const imports: PomDependency[] = [];
  for (const raw of managedRaw) {
    const d = interpolateDependency(raw, resolve);
    if (d.scope === 'import' && d.type === 'pom') imports.push(d);
    else managed.set(managementKey(d), d);
  }
  const importing = new Set(options.importing ?? []);
  for (const imp of imports) {
    const key = `${imp.groupId}:${imp.artifactId}:${imp.version ?? ''}`;
    if (imp.version === null || !isInterpolated(imp.version)) {
      missing.push(key);
      continue;
    }
    // A BOM importing itself (through others) stops here; so does a chain of imports past the bound.
    if (importing.has(key) || importing.size >= MAX_PARENT_DEPTH) continue;
    const bom = await lookup.bom({ groupId: imp.groupId, artifactId: imp.artifactId, version: imp.version });
    if (bom === null) {
      missing.push(key);
      continue;
    }
    const model = await effectiveModel(bom, lookup, { importing: new Set([...importing, key]) });
    missing.push(...model.missing);
    // The importing POM's own entries win, then the first import that manages a key.
    for (const [k, d] of model.managed) if (!managed.has(k)) managed.set(k, d);
  }
  const firstLicensed = refs.find((r) => r.pom.licenses.length > 0);
  const groupId = resolve('project.groupId');
  const version = resolve('project.version');
  return {
    groupId: groupId === null ? null : interpolate(groupId, resolve),
    artifactId: start.pom.artifactId,
    version: version === null ? null : interpolate(version, resolve),
    properties,
    dependencies: [...byKey.values()].map((d) => manage(interpolateDependency(d, resolve), managed)),
    managed,
    licenses: firstLicensed?.pom.licenses ?? [],
    missing,
  };
}
