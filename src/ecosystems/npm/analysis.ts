import type { MetadataClient } from '../../model/enrich-types.js';
import type { Ecosystem, FileProblem } from '../types.js';
import { buildInventory, type StandaloneResolver } from './build.js';
import { claimNpm, detect } from './detect.js';
import { packageUrl } from './purl.js';

export interface NpmEcosystemOptions {
  /** Resolves manifests no lockfile covers (Arborist against the user's registry); null offline. */
  readonly resolver: StandaloneResolver | null;
  readonly metadata: MetadataClient | null;
}

/** JavaScript: package.json manifests and npm, yarn (classic and berry), pnpm and bun lockfiles. */
export function npmEcosystem(options: NpmEcosystemOptions): Ecosystem {
  return {
    id: 'npm',
    label: 'npm',
    metadata: options.metadata,
    claim: claimNpm,
    countManifests(files) {
      return files.filter((f) => f.kind === 'package-json').length;
    },
    async build(files, ctx) {
      const detection = detect(files);
      const problems: FileProblem[] = detection.unreadable.map((u) => ({ ...u, reason: 'malformed', message: u.reason }));
      const resolver = options.resolver;
      const inventory = await buildInventory(
        detection,
        (project) =>
          resolver
            ? resolver(project, ctx.signal)
            : Promise.resolve({
                failed: { manifest: project.manifest.path, outcome: 'resolution_failed', detail: 'no registry is available to resolve it' },
              }),
        ctx.onManifestDone,
        problems,
      );
      return { inventory, problems };
    },
    purl: packageUrl,
  };
}
