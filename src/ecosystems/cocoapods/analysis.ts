import { emptyInventory } from '../../model/model.js';
import { AnalysisError } from '../../model/types.js';
import { GraphBuilder, mergeInventory } from '../shared/builder.js';
import { dirOf } from '../shared/paths.js';
import type { ClaimedFile, Ecosystem, EcosystemInventory, FileProblem, RegistryEndpoint } from '../types.js';
import { claimCocoapods } from './detect.js';
import { baseOf, parsePodfileLock, type ExternalSource, type PodfileLock } from './lockfile.js';
import { readPodfile } from './podfile.js';
import { cocoapodsPurl } from './purl.js';
import { cocoapodsMetadataClient } from './registry.js';
import { problemOf } from '../shared/problems.js';
import { declaredOnly } from '../shared/declared.js';

/**
 * CocoaPods: `Podfile.lock` is the record, one component per PODS entry — a subspec
 * (`Firebase/Analytics`) is its own entry, and its purl is its pod's with the subspec as subpath —
 * with edges to the exact entries each one names. Pods from EXTERNAL SOURCES are marked: a local
 * `:path` or `:podspec` pod is a file source (`cocoapods_external: path`), a `:git` pod a git
 * source at the commit CHECKOUT OPTIONS records. The lock records no scopes. The `Podfile` beside
 * it (read as text) is the root; without a lock, its `pod` lines are declarations.
 */

function sourceOf(lock: PodfileLock, pod: string): { source: 'registry' | 'file' | 'git'; resolved: string | null; facts: Record<string, string> } {
  const base = baseOf(pod);
  const external: ExternalSource | undefined = lock.external.get(base);
  const checkout = lock.checkout.get(base);
  const facts: Record<string, string> = {};
  const checksum = lock.checksums.get(base);
  if (checksum !== undefined) facts['podspec_sha1'] = checksum;
  const repo = lock.specRepos.get(base);
  if (repo !== undefined) facts['spec_repo'] = repo;
  if (external?.git !== undefined || checkout?.git !== undefined) {
    const commit = checkout?.commit ?? external?.commit ?? null;
    facts['cocoapods_external'] = 'git';
    return { source: 'git', resolved: `${checkout?.git ?? external?.git ?? ''}${commit === null ? '' : `#${commit}`}`, facts };
  }
  if (external?.path !== undefined || external?.podspec !== undefined) {
    facts['cocoapods_external'] = external.path !== undefined ? 'path' : 'podspec';
    return { source: 'file', resolved: external.path ?? external.podspec ?? null, facts };
  }
  return { source: 'registry', resolved: null, facts };
}

function buildLock(file: ClaimedFile, podfile: ClaimedFile | undefined): ReturnType<GraphBuilder['finish']> {
  const lock = parsePodfileLock(file.path, file.content);
  const b = new GraphBuilder(file.path, 'cocoapods');
  const dir = dirOf(file.path);
  const root = b.root('', { name: dir.split('/').pop() || 'Podfile', version: null, installPath: '' });
  for (const pod of lock.pods) {
    const { source, resolved, facts } = sourceOf(lock, pod.name);
    b.add(pod.name, { name: pod.name, version: pod.version, source, resolved, facts });
  }
  for (const pod of lock.pods) {
    const from = b.get(pod.name);
    if (from === undefined) continue;
    for (const d of pod.dependencies) {
      const to = b.get(d.name);
      if (to !== undefined) b.edge(from, to, 'prod', d.constraint);
    }
  }
  for (const d of lock.dependencies) {
    const to = b.get(d.name);
    if (to !== undefined) b.edge(root, to, 'prod', d.constraint);
    else b.unresolved({ manifest: podfile?.path ?? file.path, name: d.name, range: d.constraint ?? '', kind: 'DEPENDENCIES', ecosystem: 'cocoapods' });
  }
  if (podfile !== undefined) b.covers(podfile.path);
  return b.finish({ kind: 'Podfile.lock', version: lock.cocoapods, scopes: 'unknown' });
}

async function build(files: readonly ClaimedFile[], onManifestDone: () => void): Promise<EcosystemInventory> {
  const inventory = emptyInventory();
  const problems: FileProblem[] = [];
  const podfiles = new Map(files.filter((f) => f.kind === 'podfile').map((f) => [dirOf(f.path), f]));
  const locked = new Set<string>();
  for (const file of files.filter((f) => f.kind === 'podfile-lock')) {
    const podfile = podfiles.get(dirOf(file.path));
    try {
      mergeInventory(inventory, buildLock(file, podfile));
      if (podfile !== undefined) locked.add(podfile.path);
    } catch (error) {
      if (error instanceof AnalysisError && error.problems.some((p) => p.limit !== undefined)) throw error;
      problems.push(problemOf(file, error));
      inventory.notices.push(`${file.path} was skipped: it could not be read as a Podfile.lock`);
    }
  }
  for (const podfile of podfiles.values()) {
    onManifestDone();
    if (locked.has(podfile.path)) continue;
    const declared = readPodfile(podfile.content).map((d) => ({ name: d.name, range: d.requirement, kind: d.target === null ? 'pod' : `target:${d.target}` }));
    const root = { name: dirOf(podfile.path).split('/').pop() || 'Podfile', version: null };
    mergeInventory(inventory, declaredOnly(podfile.path, 'cocoapods', root, declared, 'no Podfile.lock was uploaded and CocoaPods resolution is not run here; its pods are listed as declarations'));
  }
  return { inventory, problems };
}

/** CocoaPods; `registry` is the CDN of `PACKAGE_REGISTRIES.cocoapods` (null: offline). */
export function cocoapodsEcosystem(registry: RegistryEndpoint | null): Ecosystem {
  return {
    id: 'cocoapods',
    label: 'CocoaPods',
    claim: claimCocoapods,
    build: (files, ctx) => build(files, ctx.onManifestDone),
    purl: cocoapodsPurl,
    metadata: registry === null ? null : cocoapodsMetadataClient(registry),
    countManifests: (files) => files.filter((f) => f.kind === 'podfile').length,
  };
}
