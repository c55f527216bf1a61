import { HostBreakers, type HostBreakerOptions } from '../net/breaker.js';
import { RegistryEnricher } from './enrich.js';
import type { Enricher, MetadataCache, MetadataClient } from '../model/enrich-types.js';
import { createEcosystems } from '../ecosystems/analysis.js';
import type { StandaloneResolver } from '../ecosystems/npm/build.js';
import { REGISTRY_KEYS, type RegistryKey } from '../ecosystems/index.js';
import type { Ecosystem, RegistryAccess, RegistryEndpoint, RegistryHttp } from '../ecosystems/types.js';
import { registryHttp, type ClosableRegistryHttp } from '../ecosystems/shared/http.js';
import { npmMetadataClient } from '../ecosystems/npm/registry.js';
import { fetchOptionsOf, loadNpmOptions, type NpmOptions } from '../ecosystems/npm/options.js';
import { arboristResolver } from '../ecosystems/npm/resolver.js';

export interface RegistryAnalysisOptions {
  readonly cache: MetadataCache | null;
  readonly resolutionTimeoutMs: number;
  readonly concurrency?: number;
  /** npm options to use instead of the user's npm configuration (tests point them at a fixture registry). */
  readonly npmOptions?: NpmOptions;
  /**
   * Base URLs of the other ecosystems' registries (`PACKAGE_REGISTRIES`); a key left out keeps
   * that ecosystem offline (lockfile records only).
   */
  readonly packageRegistries?: Partial<Readonly<Record<RegistryKey, string>>>;
  /** Repositories an uploaded POM may declare that Maven resolution searches (`MAVEN_ALLOWED_REPOSITORIES`). */
  readonly mavenAllowedRepositories?: readonly string[];
  /** Deadline of one registry request of the other ecosystems. */
  readonly registryTimeoutMs?: number;
  /** Time one analysis's enrichment may take in all (RegistryEnricher's 60 s by default). */
  readonly enrichmentBudgetMs?: number;
  /** The per-host circuit breakers' settings (3 connection failures, 30 s cool-down by default). */
  readonly breaker?: HostBreakerOptions;
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
  readonly ecosystems: readonly Ecosystem[];
  /** The same registries for an analysis thread, which builds its own ecosystems from them. */
  readonly registryAccess: RegistryAccess;
  /** Closes the registry connections once the requests in flight have ended. */
  close(): Promise<void>;
  /** Closes them now, failing what is still in flight (a CLI run that has written its document). */
  destroy(): Promise<void>;
}

/**
 * The registry collaborators of the analysis, made once per process so that in-flight metadata
 * fetches are shared between the jobs it runs.
 */
export async function registryAnalysis(options: RegistryAnalysisOptions): Promise<RegistryAnalysis> {
  // The user's npm configuration is read when a registry is first reached (a warm cache or an
  // analysis of other ecosystems never reads it); a given one is used as it is.
  let loaded: Promise<NpmOptions> | undefined;
  const npmOptions = () => (loaded ??= options.npmOptions ? Promise.resolve(options.npmOptions) : loadNpmOptions());
  const fetchOptions = async (): Promise<NpmOptions> => fetchOptionsOf(await npmOptions());
  const { observer } = options;
  const observe = (client: MetadataClient): MetadataClient => (observer ? observer.observeClient(client) : client);
  const resolver = arboristResolver(npmOptions, options.resolutionTimeoutMs);
  // As many sockets per registry as requests may be in flight: fewer would queue them in undici.
  const connections = Math.max(32, options.concurrency ?? 0);
  // One breaker per host for every client: resolution, enrichment and npm's plain requests alike.
  const breakers = new HostBreakers(options.breaker);
  const http = registryHttp({ timeoutMs: options.registryTimeoutMs ?? 20_000, connections, breakers });
  // npm registries with npm's own CAs get a client of their own (made when first asked for).
  let npmHttp: ClosableRegistryHttp | null = null;
  const plainHttpFor = (ca: string | readonly string[] | null): RegistryHttp =>
    ca === null ? http : (npmHttp ??= registryHttp({ timeoutMs: options.registryTimeoutMs ?? 20_000, ca, connections, breakers }));
  const registries: Partial<Record<RegistryKey, RegistryEndpoint>> = {};
  // Notices name a registry by its key (`crates`), found by the origin of the host that failed.
  const registryNames = new Map<string, string>();
  for (const key of REGISTRY_KEYS) {
    const base = options.packageRegistries?.[key];
    if (base === undefined) continue;
    registries[key] = { base, http };
    const origin = originOf(base);
    if (origin !== null && !registryNames.has(origin)) registryNames.set(origin, key);
  }
  const ecosystems = createEcosystems({
    npm: { resolver, metadata: npmMetadataClient(fetchOptions, undefined, plainHttpFor) },
    registries,
    resolutionTimeoutMs: options.resolutionTimeoutMs,
    mavenAllowedRepositories: options.mavenAllowedRepositories ?? [],
  });
  const clients = new Map<string, MetadataClient>();
  for (const e of ecosystems) if (e.metadata) clients.set(e.id, observe(e.metadata));
  return {
    registry: new RegistryEnricher(clients, options.cache && observer ? observer.observeCache(options.cache) : options.cache, {
      concurrency: options.concurrency ?? 16,
      registryNames,
      ...(options.enrichmentBudgetMs === undefined ? {} : { budgetMs: options.enrichmentBudgetMs }),
    }),
    resolver,
    ecosystems,
    registryAccess: { bases: options.packageRegistries ?? {}, http, resolutionTimeoutMs: options.resolutionTimeoutMs, mavenAllowedRepositories: options.mavenAllowedRepositories ?? [] },
    close: async () => {
      await Promise.all([http.close(), npmHttp?.close()]);
    },
    destroy: async () => {
      await Promise.all([http.destroy(), npmHttp?.destroy()]);
    },
  };
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
