import type { MetadataClient } from '../../enrich-types.js';
import type { Ecosystem, FileProblem } from '../types.js';
import { buildInventory, type StandaloneResolver } from './build.js';
import { basename } from './common.js';
import { classifyNpmFile, detect, NPM_FILE_NAMES } from './detect.js';
import { packageUrl } from './purl.js';

export interface NpmEcosystemOptions {
  /** Resolves manifests no lockfile covers (Arborist against the user's registry); null offline. */
  readonly resolver: StandaloneResolver | null;
  readonly metadata: MetadataClient | null;
}

const KIND_BY_NAME: Readonly<Record<string, string>> = {
  'package.json': 'package-json',
  'package-lock.json': 'npm-lock',
  'npm-shrinkwrap.json': 'npm-lock',
  'yarn.lock': 'yarn-lock',
  'pnpm-lock.yaml': 'pnpm-lock',
  'pnpm-workspace.yaml': 'pnpm-workspace',
  'bun.lock': 'bun-lock',
  'bun.lockb': 'bun-lock',
};

/** JavaScript: package.json manifests and npm, yarn (classic and berry), pnpm and bun lockfiles. */
export function npmEcosystem(options: NpmEcosystemOptions): Ecosystem {
  return {
    id: 'npm',
    label: 'npm',
    metadata: options.metadata,
    claim(file) {
      const name = basename(file.path);
      const byName = KIND_BY_NAME[name];
      if (NPM_FILE_NAMES.has(name) && byName !== undefined) {
        return { kind: byName, role: byName === 'package-json' ? 'manifest' : byName === 'pnpm-workspace' ? 'auxiliary' : 'lockfile', by: 'name' };
      }
      // Renamed files (an upload's `frontend-lock.json`) are recognised by their content.
      const classified = classifyNpmFile(file);
      if (classified === null || 'unreadable' in classified) return null;
      return { kind: classified.kind, role: classified.kind === 'package-json' ? 'manifest' : 'lockfile', by: 'content' };
    },
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
