import type { StandaloneResolver } from '../sbom/analyze.js';
import { RegistryEnricher } from '../sbom/enrich.js';
import type { Enricher, MetadataCache, MetadataClient } from '../sbom/enrich-types.js';
import { npmMetadataClient } from './metadata-client.js';
import { loadNpmOptions, type NpmOptions } from './npm-options.js';
import { arboristResolver } from './resolver.js';

export interface RegistryAnalysisOptions {
  readonly cache: MetadataCache | null;
  readonly resolutionTimeoutMs: number;
  readonly concurrency?: number;
  /** npm options to use instead of the user's npm configuration (tests point them at a fixture registry). */
  readonly npmOptions?: NpmOptions;
  /** Wraps the metadata client and cache to time requests and count cache hits (metrics). */
  readonly observer?: RegistryObserver;
}

export interface RegistryObserver {
  observeClient(client: MetadataClient): MetadataClient;
  observeCache(cache: MetadataCache): MetadataCache;
}

export interface RegistryAnalysis {
  readonly registry: Enricher;
  readonly resolver: StandaloneResolver;
}

/**
 * The registry collaborators of the analysis, made once per process so that in-flight metadata
 * fetches are shared between the jobs it runs.
 */
export async function registryAnalysis(options: RegistryAnalysisOptions): Promise<RegistryAnalysis> {
  const npmOptions = options.npmOptions ?? (await loadNpmOptions());
  // Our own metadata cache replaces npm's HTTP cache for enrichment.
  const { cache: _httpCache, ...fetchOptions } = npmOptions;
  const client = npmMetadataClient(fetchOptions);
  const { observer } = options;
  return {
    registry: new RegistryEnricher(
      observer ? observer.observeClient(client) : client,
      options.cache && observer ? observer.observeCache(options.cache) : options.cache,
      options.concurrency ?? 16,
    ),
    resolver: arboristResolver(npmOptions, options.resolutionTimeoutMs),
  };
}
