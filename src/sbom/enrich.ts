import pLimit from 'p-limit';
import type { Coordinate, Enricher, EnrichmentResult, MetadataCache, MetadataClient } from './enrich-types.js';
import { coordinateKey, type PackageMetadata } from './metadata.js';
import type { ProgressCounts } from './types.js';

/**
 * Registry enrichment of distinct coordinates: the cache first, then the registry with bounded
 * concurrency. Fetches are shared in flight: two analyses asking for the same coordinate at once
 * cause one request. A coordinate that cannot be fetched is reported, not fatal.
 */
export class RegistryEnricher implements Enricher {
  private readonly inflight = new Map<string, Promise<PackageMetadata | null>>();
  private readonly limit: ReturnType<typeof pLimit>;

  constructor(
    private readonly client: MetadataClient,
    private readonly cache: MetadataCache | null,
    concurrency = 16,
  ) {
    this.limit = pLimit(concurrency);
  }

  /** Shared between analyses, so not tied to one analysis's abort signal (the client has timeouts). */
  private fetchShared(c: Coordinate): Promise<PackageMetadata | null> {
    const key = coordinateKey(c.name, c.version);
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.limit(() => this.client.fetch(c.name, c.version)).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  async enrich(
    coordinates: readonly Coordinate[],
    onProgress: (counts: ProgressCounts) => void,
    signal: AbortSignal | undefined,
  ): Promise<EnrichmentResult> {
    const counts = { coordinates_total: coordinates.length, coordinates_done: 0, cached: 0, fetched: 0, fetch_failed: 0 };
    const metadata = new Map<string, PackageMetadata>();
    const failed: string[] = [];
    const keys = coordinates.map((c) => coordinateKey(c.name, c.version));
    const cached = this.cache ? await this.cache.getMany(keys) : new Map<string, PackageMetadata>();
    for (const [key, value] of cached) metadata.set(key, value);
    counts.cached = cached.size;
    counts.coordinates_done = cached.size;
    onProgress({ ...counts });

    const fresh = new Map<string, PackageMetadata>();
    await Promise.all(
      coordinates
        .filter((c) => !cached.has(coordinateKey(c.name, c.version)))
        .map(async (c) => {
          const key = coordinateKey(c.name, c.version);
          try {
            signal?.throwIfAborted();
            const value = await this.fetchShared(c);
            if (value === null) {
              failed.push(key);
              counts.fetch_failed++;
            } else {
              metadata.set(key, value);
              fresh.set(key, value);
              counts.fetched++;
            }
          } catch {
            signal?.throwIfAborted();
            failed.push(key);
            counts.fetch_failed++;
          }
          counts.coordinates_done++;
          onProgress({ ...counts });
        }),
    );
    signal?.throwIfAborted();
    if (this.cache && fresh.size > 0) {
      // A cache that cannot be written costs a refetch next time, never this result.
      await this.cache.setMany(fresh).catch(() => undefined);
    }
    failed.sort();
    return { metadata, failed };
  }
}
