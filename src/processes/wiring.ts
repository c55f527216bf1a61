import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { packageInspectorsOf, packageSourcesOf, sourceContext, targetOutgoing, type TargetOutgoing } from '../ecosystems/sources.js';
import type { PackageInspector } from '../ecosystems/shared/inspect.js';
import type { PackageSources } from '../ecosystems/shared/package-source.js';
import { registryAnalysis, type RegistryAnalysis, type RegistryObserver } from '../sbom/registry-analysis.js';
import type { NpmOptions } from '../ecosystems/npm/options.js';
import { PgMetadataCache } from '../db/metadata-cache.js';
import type { Logger } from '../logger.js';
import { createAnalysisPool, type AnalysisPool } from '../threads/analysis-pool.js';
import { createGrepPool, type GrepPool } from '../threads/grep-pool.js';

/** What the API and worker roots wire alike (their queues: jobs/queues.ts `createQueues`). */

/** Registry enrichment and resolution of the analysis, with metadata cached in Postgres. */
export function registryAnalysisFor(config: Config, database: DatabaseHandle, npmOptions: NpmOptions, observer: RegistryObserver): Promise<RegistryAnalysis> {
  return registryAnalysis({
    cache: new PgMetadataCache(database.db),
    resolutionTimeoutMs: config.resolutionTimeoutMs,
    concurrency: config.registryConcurrency.service,
    npmOptions,
    packageRegistries: config.packageRegistries,
    mavenAllowedRepositories: config.mavenAllowedRepositories,
    observer,
  });
}

export interface PackageTargets {
  readonly sources: PackageSources;
  /** Package inspection per registry, through the same clients as the sources. */
  readonly inspectors: Readonly<Partial<Record<string, PackageInspector>>>;
  /** Their registry and archive requests, under the address policy; closed with the process. */
  readonly outgoing: TargetOutgoing;
}

/** The package sources of package targets (version lookups, archives) at the configured registries. */
export function packageTargetsFor(config: Config, npmOptions: NpmOptions): PackageTargets {
  const outgoing = targetOutgoing(npmOptions, config.packageRegistries, config.registryAllowPrivateAddresses);
  const context = sourceContext(npmOptions, config.packageRegistries, config.resolutionTimeoutMs, outgoing);
  return { outgoing, sources: packageSourcesOf(context), inspectors: packageInspectorsOf(context) };
}

/** The analysis pool a process makes from its configuration; unexpected failures are logged with their stack. */
export function analysisPoolFor(config: Pick<Config, 'analysis'>, logger: Logger): AnalysisPool {
  return createAnalysisPool({
    threads: config.analysis.threads,
    maxQueue: config.analysis.maxQueue,
    budgetMs: config.analysis.timeLimitMs,
    maxHeapMb: config.analysis.maxHeapMb,
    onUnexpected: (error) => logger.error({ err: error }, 'analysis failed unexpectedly'),
  });
}

/** The grep pool an API process makes: as many threads, queue and heap as its analysis pool. */
export function grepPoolFor(config: Pick<Config, 'analysis'>): GrepPool {
  return createGrepPool({ threads: config.analysis.threads, maxQueue: config.analysis.maxQueue, budgetMs: 15_000, maxHeapMb: config.analysis.maxHeapMb });
}
