import type { StandaloneResolver } from '../sbom/analyze.js';
import { RegistryEnricher } from '../sbom/enrich.js';
import type { Enricher, MetadataCache } from '../sbom/enrich-types.js';
import { npmMetadataClient } from './metadata-client.js';
import { loadNpmOptions, type NpmOptions } from './npm-options.js';
import { arboristResolver } from './resolver.js';

export interface RegistryAnalysisOptions {
  readonly cache: MetadataCache | null;
  readonly resolutionTimeoutMs: number;
  readonly concurrency?: number;
  /** npm options to use instead of the user's npm configuration (tests point them at a fixture registry). */
  readonly npmOptions?: NpmOptions;
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
  return {
    registry: new RegistryEnricher(npmMetadataClient(fetchOptions), options.cache, options.concurrency ?? 16),
    resolver: arboristResolver(npmOptions, options.resolutionTimeoutMs),
  };
}
