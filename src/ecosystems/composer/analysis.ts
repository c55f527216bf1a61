import { emptyInventory } from '../../model/model.js';
import type { FileProblem } from '../../model/types.js';
import { GraphBuilder, mergeInventory } from '../shared/builder.js';
import { dirOf } from '../shared/paths.js';
import type { BuildContext, ClaimedFile, Ecosystem, EcosystemInventory, RegistryEndpoint } from '../types.js';
import { claimComposer, manifestOfLock } from './detect.js';
import { declarationsOf, readComposerJson, type ComposerManifest } from './manifest.js';
import { parseComposerLock } from './parse-composer-lock.js';
import { composerPurl } from './purl.js';
import { packagistMetadataClient } from './registry.js';

/**
 * PHP: composer.lock is the record (with composer.json beside it naming the project and its own
 * requirements); a composer.json without a lock gives the project and its requirements as
 * declarations, never a resolution against Packagist.
 */

function folderName(path: string): string {
  const dir = dirOf(path);
  return dir.slice(dir.lastIndexOf('/') + 1) || 'project';
}

async function build(files: readonly ClaimedFile[], ctx: BuildContext): Promise<EcosystemInventory> {
  const inventory = emptyInventory();
  const problems: FileProblem[] = [];
  const manifests = new Map<string, ComposerManifest>();
  for (const f of files.filter((x) => x.kind === 'composer-json')) {
    const read = readComposerJson(f.path, f.content);
    if (read.ok) manifests.set(f.path, read.value);
    else problems.push(read.problem);
  }
  const covered = new Set<string>();
  for (const lock of files.filter((f) => f.kind === 'composer-lock')) {
    ctx.signal?.throwIfAborted();
    const manifestPath = manifestOfLock(lock.path);
    covered.add(manifestPath);
    const read = parseComposerLock(lock.path, lock.content, { manifest: manifests.get(manifestPath) ?? null, fallbackName: folderName(lock.path) });
    if (read.ok) mergeInventory(inventory, read.inventory);
    else {
      problems.push(read.problem);
      inventory.notices.push(`${lock.path} was skipped: ${read.problem.message ?? 'malformed'}`);
    }
  }
  for (const manifest of manifests.values()) {
    if (covered.has(manifest.path)) continue;
    const b = new GraphBuilder(manifest.path, 'composer', (n) => n.toLowerCase());
    b.root('', { name: manifest.name ?? folderName(manifest.path), version: manifest.version, license: manifest.license, installPath: '' });
    const declared = declarationsOf(manifest);
    for (const d of declared) b.unresolved(d);
    b.manifest(manifest.path, 'resolution_failed', declared.length === 0 ? null : 'no composer.lock was uploaded; its requirements are listed as declarations', 'standalone');
    mergeInventory(inventory, b.finish(null, 'recorded'));
  }
  for (const f of files) if (f.role === 'manifest') ctx.onManifestDone();
  return { inventory, problems };
}

/**
 * The PHP ecosystem. `registry` is the Packagist origin from `PACKAGE_REGISTRIES.packagist` with
 * the registry HTTP client; null runs offline (no metadata).
 */
export function composerEcosystem(registry: RegistryEndpoint | null): Ecosystem {
  return {
    id: 'composer',
    label: 'PHP',
    claim: claimComposer,
    build,
    purl: composerPurl,
    metadata: registry === null ? null : packagistMetadataClient(registry),
  };
}
