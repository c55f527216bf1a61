import { AnalysisError } from '../../model/types.js';
import { emptyInventory } from '../../model/model.js';
import { GraphBuilder, mergeInventory } from '../shared/builder.js';
import { dirOf } from '../shared/paths.js';
import type { ClaimedFile, Ecosystem, EcosystemInventory, FileProblem } from '../types.js';
import { claimSwift } from './detect.js';
import { readPackageSwift, type SwiftManifest } from './manifest.js';
import { swiftPurl } from './purl.js';
import { parseResolved, type SwiftPin } from './resolved.js';
import { problemOf } from '../shared/problems.js';
import { declaredOnly } from '../shared/declared.js';

/**
 * Swift Package Manager: `Package.resolved` (v1–v3) is the record, one component per pin (its
 * version, else the pinned revision), identified by its repository URL; `Package.swift` beside it
 * (read as text) names the project, a root with edges to the pins it declares. The resolved file
 * records no graph and no scopes, so components state no scope. Without a `Package.resolved`
 * the manifest's dependencies are declarations. SwiftPM has no registry this service reads.
 */

function declarationKind(): string {
  return 'dependencies';
}

function pinVersion(pin: SwiftPin): string | null {
  return pin.version ?? pin.revision;
}

function build(files: readonly ClaimedFile[], onManifestDone: () => void): EcosystemInventory {
  const inventory = emptyInventory();
  const problems: FileProblem[] = [];
  // One manifest per folder: `Package.swift` before its tools-version variants.
  const manifests = new Map<string, { path: string; manifest: SwiftManifest }>();
  for (const f of [...files].filter((x) => x.kind === 'package-swift').sort((a, b) => a.path.length - b.path.length)) {
    if (!manifests.has(dirOf(f.path))) manifests.set(dirOf(f.path), { path: f.path, manifest: readPackageSwift(f.content) });
  }
  const covered = new Set<string>();
  for (const file of files.filter((f) => f.kind === 'package-resolved')) {
    try {
      const resolved = parseResolved(file.path, file.content);
      const dir = dirOf(file.path);
      const own = manifests.get(dir);
      const b = new GraphBuilder(file.path, 'swift');
      const root = own === undefined ? null : b.root('', { name: own.manifest.name ?? (dir.split('/').pop() || 'package'), version: null, installPath: '' });
      for (const pin of resolved.pins) {
        b.add(pin.identity, {
          name: pin.identity,
          version: pinVersion(pin),
          source: pin.kind === 'localSourceControl' ? 'file' : pin.kind === 'registry' ? 'registry' : 'git',
          resolved: pin.location,
          facts: { ...(pin.revision === null ? {} : { revision: pin.revision }), ...(pin.branch === null ? {} : { branch: pin.branch }) },
        });
      }
      if (own !== undefined && root !== null) {
        for (const d of own.manifest.dependencies) {
          const to = b.get(d.identity);
          if (to !== undefined) b.edge(root, to, 'prod', d.requirement === '' ? null : d.requirement);
          else if (!d.local) b.unresolved({ manifest: own.path, name: d.identity, range: d.requirement, kind: declarationKind(), ecosystem: 'swift' });
        }
        b.covers(own.path);
        covered.add(own.path);
      }
      // Versions 2 and 3 differ only beside the pins (`originHash`): a newer one is read as 3.
      if (resolved.version > 3) b.notice(`${file.path}: Package.resolved format version ${resolved.version} is newer than this reader knows; it was read as version 3`);
      mergeInventory(inventory, b.finish({ kind: 'Package.resolved', version: String(resolved.version), scopes: 'unknown' }));
    } catch (error) {
      if (error instanceof AnalysisError && error.problems.some((p) => p.limit !== undefined)) throw error;
      problems.push(problemOf(file, error));
      inventory.notices.push(`${file.path} was skipped: it could not be read as a Package.resolved`);
    }
  }
  for (const [dir, { path, manifest }] of manifests) {
    onManifestDone();
    if (covered.has(path)) continue;
    const declared = manifest.dependencies.filter((d) => !d.local).map((d) => ({ name: d.identity, range: d.requirement, kind: declarationKind() }));
    const root = { name: manifest.name ?? (dir.split('/').pop() || 'package'), version: null };
    mergeInventory(inventory, declaredOnly(path, 'swift', root, declared, 'no Package.resolved was uploaded and SwiftPM resolution is not run here; its dependencies are listed as declarations'));
  }
  return { inventory, problems };
}

export function swiftEcosystem(): Ecosystem {
  return {
    id: 'swift',
    label: 'Swift',
    claim: claimSwift,
    build: async (files, ctx) => build(files, ctx.onManifestDone),
    purl: swiftPurl,
    metadata: null,
    countManifests: (files) => new Set(files.filter((f) => f.kind === 'package-swift').map((f) => dirOf(f.path))).size,
  };
}
