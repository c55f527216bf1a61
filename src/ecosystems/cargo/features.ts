import type { EdgeKind } from '../../model/model.js';
import { edgeKinds, type CargoDependency, type CargoManifest } from './manifest.js';

/**
 * Which optional dependencies of each workspace member are turned on, by Cargo's feature rules
 * (https://doc.rust-lang.org/cargo/reference/features.html), across the whole workspace: every
 * member builds with its `default` features, and a member's features reach the members it depends
 * on — `features = […]` (and their defaults unless `default-features = false`) on the dependency,
 * `dep/feat` in a `[features]` table (which also turns `dep` on), `dep?/feat` (which adds `feat`
 * only where `dep` is on by other means). A feature `f` turns on `dep:f` targets and an optional
 * dependency of that name (its implicit feature). Features asked of crates outside the workspace
 * are not followed: Cargo.lock records no manifest of theirs. Each (member, feature) and (member,
 * dependency) is visited once, so the walk is linear in the manifests' size.
 */

type Request = { readonly kind: 'feature' | 'dep'; readonly member: string; readonly name: string };

export function workspaceEdgeKinds(members: ReadonlyMap<string, CargoManifest>): Map<string, Map<string, EdgeKind>> {
  const features = new Map<string, Set<string>>();
  const deps = new Map<string, Set<string>>();
  const weak = new Map<string, string[]>();
  const queue: Request[] = [];
  const byKey = new Map<string, Map<string, CargoDependency[]>>();
  for (const [name, m] of members) {
    const keyed = new Map<string, CargoDependency[]>();
    // Dev-dependencies are not part of what ships: features cannot turn them on.
    for (const d of m.dependencies) if (d.section !== 'dev-dependencies') keyed.set(d.key, [...(keyed.get(d.key) ?? []), d]);
    byKey.set(name, keyed);
  }
  const seen = (map: Map<string, Set<string>>, member: string, name: string): boolean => {
    const set = map.get(member) ?? new Set<string>();
    map.set(member, set);
    if (set.has(name)) return true;
    set.add(name);
    return false;
  };
  /** What depending on member dependency `d` asks of its crate, when that crate is a member. */
  const asks = (d: CargoDependency): void => {
    if (!members.has(d.name)) return;
    if (d.defaultFeatures) queue.push({ kind: 'feature', member: d.name, name: 'default' });
    for (const f of d.features) queue.push({ kind: 'feature', member: d.name, name: f });
  };
  const featureOf = (member: string, key: string, feature: string): void => {
    for (const d of byKey.get(member)?.get(key) ?? []) if (members.has(d.name)) queue.push({ kind: 'feature', member: d.name, name: feature });
  };

  for (const [name, m] of members) {
    queue.push({ kind: 'feature', member: name, name: 'default' });
    for (const d of m.dependencies) if (d.section !== 'dev-dependencies' && !d.optional) asks(d);
  }
  for (let i = 0; i < queue.length; i++) {
    const { kind, member, name } = queue[i] as Request;
    const manifest = members.get(member);
    if (manifest === undefined) continue;
    if (kind === 'dep') {
      if (seen(deps, member, name)) continue;
      for (const d of byKey.get(member)?.get(name) ?? []) asks(d);
      for (const f of weak.get(`${member}\u0000${name}`) ?? []) featureOf(member, name, f);
      continue;
    }
    if (seen(features, member, name)) continue;
    const table = manifest.features.get(name);
    if (table === undefined) {
      // An optional dependency is an implicit feature of its own name.
      if (byKey.get(member)?.get(name)?.some((d) => d.optional) === true) queue.push({ kind: 'dep', member, name });
      continue;
    }
    for (const entry of table) {
      const slash = entry.indexOf('/');
      if (entry.startsWith('dep:')) queue.push({ kind: 'dep', member, name: entry.slice(4) });
      else if (slash === -1) queue.push({ kind: 'feature', member, name: entry });
      else if (entry.slice(0, slash).endsWith('?')) {
        const key = entry.slice(0, slash - 1);
        const feature = entry.slice(slash + 1);
        const list = weak.get(`${member}\u0000${key}`) ?? [];
        list.push(feature);
        weak.set(`${member}\u0000${key}`, list);
        // Already on (non-optional, or turned on before): the feature applies now.
        if (deps.get(member)?.has(key) === true || byKey.get(member)?.get(key)?.some((d) => !d.optional) === true) featureOf(member, key, feature);
      } else {
        const key = entry.slice(0, slash);
        queue.push({ kind: 'dep', member, name: key });
        featureOf(member, key, entry.slice(slash + 1));
      }
    }
  }
  return new Map([...members].map(([name, m]) => [name, edgeKinds(m, deps.get(name) ?? new Set())]));
}
