import pep440 from '@renovatebot/pep440';
import type { EdgeKind, Occurrence } from '../../model/model.js';
import { TransientAnalysisError } from '../../model/types.js';
import type { GraphBuilder } from '../shared/builder.js';
import type { RegistryEndpoint } from '../types.js';
import { arr, obj, sha256Integrity, str, strings } from './data.js';
import type { Declared } from './manifest.js';
import { evaluateMarker, type MarkerEnvironment } from './markers.js';
import { parseRequirement, pep503, type Requirement } from './names.js';

/** Most packages one manifest's resolution adds. */
const MAX_PACKAGES = 2_000;

export interface ResolveOptions {
  readonly registry: RegistryEndpoint;
  readonly environment: MarkerEnvironment;
  readonly signal?: AbortSignal;
}

interface Release {
  readonly version: string;
  readonly requires: readonly Requirement[];
  readonly integrity: string | null;
}

/** The highest release a specifier allows: not yanked, not a pre-release unless the specifier names one. */
async function pick(registry: RegistryEndpoint, name: string, specifier: string, signal?: AbortSignal): Promise<Release | null> {
  const opts = signal ? { signal } : {};
  const project = obj(await registry.http.json(`${registry.base}/pypi/${encodeURIComponent(pep503(name))}/json`, opts));
  const releases = obj(project['releases']);
  const usable = Object.entries(releases)
    .filter(([, files]) => arr(files).length === 0 || arr(files).some((f) => obj(f)['yanked'] !== true))
    .map(([v]) => v)
    .filter((v) => pep440.valid(v) !== null);
  const prereleases = /\d(a|b|rc|dev)\d*/.test(specifier);
  const version = pep440.maxSatisfying(usable, specifier === '' ? '>=0' : specifier, { prereleases });
  if (version === null) return null;
  const release = obj(await registry.http.json(`${registry.base}/pypi/${encodeURIComponent(pep503(name))}/${encodeURIComponent(version)}/json`, opts));
  const requires = strings(obj(release['info'])['requires_dist']).flatMap((t) => {
    const r = parseRequirement(t);
    return r ? [r] : [];
  });
  const sdist = arr(release['urls']).map(obj).find((u) => str(u['packagetype']) === 'sdist');
  return { version, requires, integrity: sha256Integrity(`sha256:${str(obj(sdist?.['digests'])['sha256']) ?? ''}`) };
}

/**
 * Resolves requirements no lockfile pins against the PyPI JSON API, breadth first: each name takes
 * the highest release its first requirement allows (later requirements of the same name reuse
 * it), and a release's `requires_dist` are followed where their markers hold for the environment
 * and the requested extras. Returns what could not be resolved; everything else is in `b`.
 */
export async function resolvePypi(
  b: GraphBuilder,
  root: Occurrence | null,
  declared: readonly Declared[],
  options: ResolveOptions,
): Promise<{ readonly unresolved: Declared[] }> {
  const unresolved: Declared[] = [];
  const chosen = new Map<string, Occurrence | null>();
  const extrasFollowed = new Map<string, Set<string>>();
  const releases = new Map<Occurrence, Release>();
  type Step = { requirement: Requirement; from: Occurrence | null; kind: EdgeKind; declared: Declared | null };
  const queue: Step[] = declared
    .filter((d) => evaluateMarker(d.requirement.marker, options.environment, new Set()))
    .map((d) => ({ requirement: d.requirement, from: root, kind: d.scope === 'prod' ? 'prod' : d.scope, declared: d }));
  for (let next = 0; next < queue.length; next++) {
    options.signal?.throwIfAborted();
    const step = queue[next];
    if (!step) break;
    const key = pep503(step.requirement.name);
    let target = chosen.get(key);
    const newExtras = step.requirement.extras.map((e) => e.toLowerCase()).filter((e) => !(extrasFollowed.get(key)?.has(e) ?? false));
    if (target === undefined) {
      if (chosen.size >= MAX_PACKAGES || step.requirement.url !== null) {
        if (step.declared) unresolved.push(step.declared);
        continue;
      }
      let release: Release | null;
      try {
        release = await pick(options.registry, step.requirement.name, step.requirement.specifier, options.signal);
      } catch (error) {
        // An unreachable registry is not a verdict on the requirement: the job is retried.
        if (error instanceof TransientAnalysisError) throw error;
        release = null;
      }
      if (release === null) {
        chosen.set(key, null);
        if (step.declared) unresolved.push(step.declared);
        continue;
      }
      target = b.add(key, { name: step.requirement.name, version: release.version, source: 'registry', integrity: release.integrity });
      chosen.set(key, target);
      extrasFollowed.set(key, new Set());
      queueRequires(release.requires, target, new Set(), queue, options.environment);
      releases.set(target, release);
    }
    if (target === null) {
      if (step.declared) unresolved.push(step.declared);
      continue;
    }
    if (step.from) b.edge(step.from, target, step.kind, step.requirement.specifier === '' ? null : step.requirement.specifier);
    if (newExtras.length > 0) {
      const followed = extrasFollowed.get(key) ?? new Set<string>();
      for (const e of newExtras) followed.add(e);
      extrasFollowed.set(key, followed);
      const release = releases.get(target);
      if (release) queueRequires(release.requires, target, new Set(newExtras), queue, options.environment, true);
    }
  }
  return { unresolved };
}

/** A release's requirements whose markers hold; with `onlyExtras`, just those an extra brings. */
function queueRequires(
  requires: readonly Requirement[],
  from: Occurrence,
  extras: ReadonlySet<string>,
  queue: { requirement: Requirement; from: Occurrence | null; kind: EdgeKind; declared: Declared | null }[],
  env: MarkerEnvironment,
  onlyExtras = false,
): void {
  for (const r of requires) {
    const mentionsExtra = r.marker !== null && /\bextra\b/.test(r.marker);
    if (onlyExtras !== mentionsExtra) continue;
    if (!evaluateMarker(r.marker, env, extras)) continue;
    queue.push({ requirement: r, from, kind: 'prod', declared: null });
  }
}
