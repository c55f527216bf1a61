import type { Inventory, Occurrence } from '../../model/model.js';
import { TransientAnalysisError } from '../../model/types.js';
import { GraphBuilder } from '../shared/builder.js';
import type { RegistryEndpoint } from '../types.js';
import { declarationsOf, edgeKinds, type CargoDependency, type CargoManifest } from './manifest.js';
import { cratesIoDownload } from './source-id.js';
import { semver } from '../../model/lazy-require.js';
import { record } from '../shared/narrow.js';

/**
 * Resolves a Cargo.toml that no Cargo.lock covers against the crates.io web API, the way Cargo
 * would write a lockfile for it: the highest published, non-yanked version matching each
 * requirement, reused when an already chosen version matches; optional dependencies only when a
 * feature turns them on (default features unless `default-features = false`); normal and build
 * dependencies of every crate, for every target; dev-dependencies of the project only. Requests:
 * one crate document (`/api/v1/crates/<name>`, all its versions and features) per crate and one
 * dependency list (`/api/v1/crates/<name>/<version>/dependencies`) per chosen version, a level of
 * the graph at a time. Git and path requirements, and requirements nothing satisfies, stay
 * declarations. Feature unification across several dependents is approximated: a version's
 * features grow as dependents ask for more, and the grown set is followed.
 */

/** More crates than any real dependency graph resolves to (the largest have a few thousand). */
const MAX_RESOLVED = 5_000;

interface RegistryDependency {
  readonly name: string;
  readonly req: string;
  readonly optional: boolean;
  readonly defaultFeatures: boolean;
  readonly features: readonly string[];
  readonly kind: 'normal' | 'dev' | 'build';
}

interface CrateVersions {
  readonly versions: readonly string[];
  readonly features: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** A Cargo version requirement as a node-semver range: a bare `1.2` is Cargo's caret, commas are AND. */
export function cargoRange(req: string): string | null {
  const parts = (req.trim() === '' ? '*' : req).split(',').map((p) => p.trim());
  const range = parts.map((p) => (/^\d/.test(p) ? `^${p}` : p.replace(/^([<>=~^]+)\s+/, '$1'))).join(' ');
  return semver().validRange(range) === null ? null : range;
}

/** Dependencies a version's features turn on, and the features they ask of each dependency. */
function enabledBy(features: ReadonlyMap<string, readonly string[]>, enabled: ReadonlySet<string>): { deps: Set<string>; depFeatures: Map<string, Set<string>> } {
  const deps = new Set<string>();
  const depFeatures = new Map<string, Set<string>>();
  const ask = (dep: string, feature: string): void => {
    const set = depFeatures.get(dep) ?? new Set<string>();
    set.add(feature);
    depFeatures.set(dep, set);
  };
  const visited = new Set<string>();
  const pending = [...enabled];
  while (pending.length > 0) {
    const feature = pending.pop() ?? '';
    if (visited.has(feature)) continue;
    visited.add(feature);
    const entries = features.get(feature);
    if (entries === undefined) {
      deps.add(feature); // an optional dependency's implicit feature
      continue;
    }
    for (const entry of entries) {
      const slash = entry.indexOf('/');
      if (entry.startsWith('dep:')) deps.add(entry.slice(4));
      else if (slash > 0) {
        const weak = entry[slash - 1] === '?';
        const dep = entry.slice(0, weak ? slash - 1 : slash);
        if (!weak) deps.add(dep);
        ask(dep, entry.slice(slash + 1));
      } else pending.push(entry);
    }
  }
  return { deps, depFeatures };
}

interface Wanted {
  readonly from: Occurrence;
  readonly name: string;
  readonly range: string;
  readonly features: readonly string[];
  readonly defaultFeatures: boolean;
  readonly kind: 'prod' | 'dev' | 'optional';
}

export type ResolveOutcome = { readonly ok: true; readonly inventory: Inventory } | { readonly ok: false; readonly detail: string };

export async function resolveManifest(manifest: CargoManifest, registry: RegistryEndpoint, signal?: AbortSignal): Promise<ResolveOutcome> {
  const base = registry.base.replace(/\/+$/, '');
  const crateUrl = (name: string): string => `${base}/api/v1/crates/${encodeURIComponent(name)}`;
  const crates = new Map<string, Promise<CrateVersions | null>>();
  const crateOf = (name: string): Promise<CrateVersions | null> => {
    let pending = crates.get(name);
    if (pending === undefined) {
      pending = registry.http.json(crateUrl(name), { signal }).then((doc) => {
        const list = Array.isArray(record(doc)?.['versions']) ? (record(doc)?.['versions'] as unknown[]) : [];
        const versions: string[] = [];
        const features = new Map<string, Map<string, string[]>>();
        for (const v of list.map(record)) {
          const num = v?.['num'];
          if (typeof num !== 'string' || v?.['yanked'] === true || semver().valid(num) === null) continue;
          versions.push(num);
          features.set(num, new Map(Object.entries(record(v?.['features']) ?? {}).map(([k, e]) => [k, strings(e)])));
        }
        return doc === null ? null : { versions, features };
      });
      crates.set(name, pending);
    }
    return pending;
  };
  const dependencies = new Map<string, Promise<RegistryDependency[]>>();
  const dependenciesOf = (name: string, version: string): Promise<RegistryDependency[]> => {
    const key = `${name}@${version}`;
    let pending = dependencies.get(key);
    if (pending === undefined) {
      pending = fetchDependencies(name, version);
      dependencies.set(key, pending);
    }
    return pending;
  };
  const fetchDependencies = async (name: string, version: string): Promise<RegistryDependency[]> => {
    const doc = record(await registry.http.json(`${crateUrl(name)}/${encodeURIComponent(version)}/dependencies`, { signal }));
    const list = Array.isArray(doc?.['dependencies']) ? (doc['dependencies'] as unknown[]) : [];
    return list.flatMap((d) => {
      const r = record(d);
      const depName = r?.['crate_id'];
      const kind = r?.['kind'];
      if (typeof depName !== 'string' || (kind !== 'normal' && kind !== 'dev' && kind !== 'build')) return [];
      return [{ name: depName, req: typeof r?.['req'] === 'string' ? r['req'] : '*', optional: r?.['optional'] === true, defaultFeatures: r?.['default_features'] !== false, features: strings(r?.['features']), kind }];
    });
  };

  const pkg = manifest.package;
  if (pkg === null) return { ok: false, detail: 'the manifest has no [package]' };
  const builder = new GraphBuilder(manifest.path, 'cargo');
  const root = builder.root(pkg.name, { name: pkg.name, version: pkg.version.value, license: pkg.license.value, installPath: '' });
  const kinds = edgeKinds(manifest);
  const registryDeps = (d: CargoDependency): boolean => d.git === null && d.path === null;
  let wanted: Wanted[] = manifest.dependencies.filter(registryDeps).flatMap((d) => {
    const range = cargoRange(d.req);
    const kind = kinds.get(d.name) === 'dev' ? 'dev' : kinds.get(d.name) === 'optional' ? 'optional' : 'prod';
    return range === null ? [] : [{ from: root, name: d.name, range, features: d.features, defaultFeatures: d.defaultFeatures, kind }];
  });
  const features = new Map<Occurrence, Set<string>>();
  const unsatisfied = new Set<string>();
  const transitive = new Set<string>();

  try {
    while (wanted.length > 0) {
      signal?.throwIfAborted();
      await Promise.all([...new Set(wanted.map((w) => w.name))].map(crateOf));
      const grown: Occurrence[] = [];
      for (const w of wanted) {
        const known = await crateOf(w.name);
        const reuse = builder.named(w.name).filter((o) => o.version !== null && semver().satisfies(o.version, w.range));
        let target = reuse.sort((a, b) => semver().rcompare(a.version ?? '0.0.0', b.version ?? '0.0.0'))[0] ?? null;
        if (target === null) {
          const version = known === null ? null : semver().maxSatisfying([...known.versions], w.range);
          if (version === null) {
            (w.from === root ? unsatisfied : transitive).add(w.name);
            continue;
          }
          if (builder.occurrences.length >= MAX_RESOLVED) return { ok: false, detail: `more than ${MAX_RESOLVED} crates` };
          target = builder.add(`${w.name}@${version}`, { name: w.name, version, source: 'registry', resolved: cratesIoDownload(w.name, version) });
        }
        builder.edge(w.from, target, w.kind);
        const existing = features.get(target);
        const set = existing ?? new Set<string>();
        const before = existing === undefined ? -1 : existing.size;
        if (w.defaultFeatures) set.add('default');
        for (const f of w.features) set.add(f);
        features.set(target, set);
        if (set.size !== before) grown.push(target);
      }
      // The next level: what each crate whose feature set grew depends on now.
      const next = await Promise.all(
        [...new Set(grown)].map(async (o) => {
          const version = o.version ?? '';
          const [deps, crate] = await Promise.all([dependenciesOf(o.name, version), crateOf(o.name)]);
          const on = enabledBy(crate?.features.get(version) ?? new Map(), features.get(o) ?? new Set());
          return deps
            .filter((d) => d.kind !== 'dev' && (!d.optional || on.deps.has(d.name)))
            .flatMap((d): Wanted[] => {
              const range = cargoRange(d.req);
              const asked = [...d.features, ...(on.depFeatures.get(d.name) ?? [])];
              return range === null ? [] : [{ from: o, name: d.name, range, features: asked, defaultFeatures: d.defaultFeatures, kind: 'prod' }];
            });
        }),
      );
      wanted = next.flat();
    }
  } catch (error) {
    signal?.throwIfAborted();
    if (error instanceof TransientAnalysisError) return { ok: false, detail: 'crates.io could not be reached' };
    // A status retrying will not change (401, 403…): the registry HTTP client's own error code.
    if ((error as { code?: unknown } | null)?.code === 'REGISTRY_RESPONSE') return { ok: false, detail: 'crates.io refused the request' };
    throw error;
  }

  // What did not become a component: git and path requirements, and those nothing satisfied.
  const declarations = declarationsOf(manifest);
  manifest.dependencies.forEach((dep, i) => {
    const declaration = declarations[i];
    if (declaration === undefined) return;
    if (!registryDeps(dep) || cargoRange(dep.req) === null || unsatisfied.has(dep.name)) builder.unresolved(declaration);
  });
  if (transitive.size > 0) builder.notice(`${manifest.path}: no published version satisfies what is asked of ${[...transitive].join(', ')}`);
  const inventory = builder.finish(null, 'graph');
  inventory.associations.push({ manifest: manifest.path, lockfile: null, role: 'standalone' });
  inventory.resolutions.push({ manifest: manifest.path, outcome: 'resolved', detail: null });
  return { ok: true, inventory };
}
