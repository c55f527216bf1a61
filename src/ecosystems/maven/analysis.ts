import { mergeInventory } from '../shared/builder.js';
import type { BuildContext, ClaimedFile, Ecosystem, EcosystemInventory, FileProblem, RegistryEndpoint } from '../types.js';
import { emptyInventory } from '../../model/model.js';
import { claimJvmFile } from './detect.js';
import { buildGradle, type GradleFiles } from './gradle.js';
import { scanBuildScript, scanSettings } from './gradle-build.js';
import { buildMaven, type PomFile } from './maven-build.js';
import { parseGradleLock } from './parse-gradle-lock.js';
import { parsePom } from './parse-pom.js';
import { parseVerificationMetadata } from './parse-verification-metadata.js';
import { parseVersionCatalog } from './parse-version-catalog.js';
import { mavenPurl } from './purl.js';
import { mavenMetadata, mavenRepository } from './registry.js';
import { JvmFileError } from './xml.js';

/**
 * The JVM: Maven POMs (resolved against a Maven repository when one is configured, see
 * maven-build.ts and resolve.ts) and Gradle builds (lockfiles, verification metadata, version
 * catalogs and build scripts read as text, see gradle.ts). Gradle publishes to Maven
 * repositories, so both give `pkg:maven` components, named `group:artifact`.
 */

export interface MavenEcosystemOptions {
  /** The resolution deadline per POM (RESOLUTION_TIMEOUT_MS). */
  readonly resolutionTimeoutMs?: number;
  /** POMs one manifest's resolution may read. */
  readonly maxPoms?: number;
  /** Levels of transitive dependencies followed. */
  readonly maxDepth?: number;
  /** URL prefixes of repositories an uploaded POM may declare that resolution searches too. */
  readonly allowedRepositories?: readonly string[];
}

interface Parsed {
  readonly poms: PomFile[];
  /** Filled while parsing, read as GradleFiles. */
  readonly gradle: { -readonly [K in keyof GradleFiles]: GradleFiles[K][number][] };
  readonly problems: FileProblem[];
}

function lockConfiguration(path: string): string | null {
  if (!path.includes('dependency-locks/')) return null;
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.slice(0, -'.lockfile'.length);
}

function parseAll(files: readonly ClaimedFile[], signal: AbortSignal | undefined): Parsed {
  const parsed: Parsed = { poms: [], gradle: { locks: [], verifications: [], catalogs: [], scripts: [], settings: [] }, problems: [] };
  for (const file of files) {
    signal?.throwIfAborted();
    try {
      if (file.kind === 'maven-pom') parsed.poms.push({ path: file.path, pom: parsePom(file.content) });
      else if (file.kind === 'gradle-lockfile') parsed.gradle.locks.push({ path: file.path, lock: parseGradleLock(file.content, lockConfiguration(file.path)) });
      else if (file.kind === 'gradle-verification') parsed.gradle.verifications.push({ path: file.path, components: parseVerificationMetadata(file.content) });
      else if (file.kind === 'gradle-catalog') parsed.gradle.catalogs.push({ path: file.path, catalog: parseVersionCatalog(file.content) });
      else if (file.kind === 'gradle-build') parsed.gradle.scripts.push({ path: file.path, dependencies: scanBuildScript(file.content) });
      else if (file.kind === 'gradle-settings') parsed.gradle.settings.push({ path: file.path, settings: scanSettings(file.content) });
    } catch (error) {
      if (!(error instanceof JvmFileError)) throw error;
      parsed.problems.push({ path: file.path, reason: error.reason, message: error.message, ...(error.line === undefined ? {} : { line: error.line }) });
    }
  }
  return parsed;
}

function hasGradle(g: GradleFiles): boolean {
  return g.locks.length + g.verifications.length + g.catalogs.length + g.scripts.length > 0;
}

export function mavenEcosystem(registry: RegistryEndpoint | null, options: MavenEcosystemOptions = {}): Ecosystem {
  const repository = registry === null ? null : mavenRepository(registry);
  const isManifest = (f: ClaimedFile): boolean => f.kind === 'maven-pom' || f.kind === 'gradle-lockfile' || f.kind === 'gradle-build';
  return {
    id: 'maven',
    label: 'Maven',
    claim: claimJvmFile,
    async build(files: readonly ClaimedFile[], ctx: BuildContext): Promise<EcosystemInventory> {
      const parsed = parseAll(files, ctx.signal);
      const inventory = emptyInventory();
      for (const p of parsed.problems) inventory.notices.push(`${p.path} was skipped: ${p.message}${p.line === undefined ? '' : ` (line ${p.line})`}`);
      if (parsed.poms.length > 0) {
        const part = await buildMaven(parsed.poms, {
          repository,
          allowedRepositories: options.allowedRepositories ?? [],
          maxPoms: options.maxPoms ?? 2000,
          maxDepth: options.maxDepth ?? 40,
          deadlineMs: options.resolutionTimeoutMs ?? 60_000,
          ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
          onManifestDone: ctx.onManifestDone,
        });
        mergeInventory(inventory, part);
      }
      if (hasGradle(parsed.gradle)) {
        mergeInventory(inventory, buildGradle(parsed.gradle));
        for (let i = 0; i < parsed.gradle.locks.length + parsed.gradle.scripts.length; i++) ctx.onManifestDone();
      }
      // A manifest that could not be read is finished with too (progress counts every manifest).
      const failed = new Set(parsed.problems.map((p) => p.path));
      for (const f of files) if (failed.has(f.path) && isManifest(f)) ctx.onManifestDone();
      return { inventory, problems: parsed.problems };
    },
    purl: (o) => (o.ecosystem === 'maven' ? mavenPurl(o) : null),
    metadata: repository === null ? null : mavenMetadata(repository),
    countManifests: (files) => files.filter(isManifest).length,
  };
}
