import pLimit from 'p-limit';
import type { Coordinate, Enricher, EnrichmentResult, MetadataCache, MetadataClient } from './enrich-types.js';
import { coordinateKey, type PackageMetadata } from './metadata.js';
import type { ProgressCounts } from './types.js';

/**
 * Registry enrichment of distinct coordinates of every ecosystem: one cache, then each ecosystem's
 * registry client under one concurrency limit. Fetches are shared in flight: two analyses asking
 * for the same coordinate at once cause one request. A coordinate that cannot be fetched is
 * reported, not fatal; one whose ecosystem has no client is left as the lockfile recorded it.
 */
export class RegistryEnricher implements Enricher {
  private readonly inflight = new Map<string, Promise<PackageMetadata | null>>();
  private readonly limit: ReturnType<typeof pLimit>;

  /**
   * @param clients each ecosystem's registry client, by ecosystem id (purl type)
   */
  constructor(
    private readonly clients: ReadonlyMap<string, MetadataClient>,
    private readonly cache: MetadataCache | null,
    concurrency = 16,
  ) {
    this.limit = pLimit(concurrency);
  }

  /** Shared between analyses, so not tied to one analysis's abort signal (the client has timeouts). */
  private fetchShared(c: Coordinate): Promise<PackageMetadata | null> {
    const key = coordinateKey(c.ecosystem, c.name, c.version);
    let pending = this.inflight.get(key);
    if (!pending) {
      const client = this.clients.get(c.ecosystem);
      if (client === undefined) return Promise.resolve(null);
      pending = this.limit(() => client.fetch(c.name, c.version)).finally(() => this.inflight.delete(key));
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
    const keys = coordinates.map((c) => coordinateKey(c.ecosystem, c.name, c.version));
    const cached = this.cache ? await this.cache.getMany(keys) : new Map<string, PackageMetadata>();
    for (const [key, value] of cached) metadata.set(key, value);
    counts.cached = cached.size;
    counts.coordinates_done = coordinates.filter((c) => cached.has(coordinateKey(c.ecosystem, c.name, c.version)) || !this.clients.has(c.ecosystem)).length;
    onProgress({ ...counts });

    const fresh = new Map<string, PackageMetadata>();
    await Promise.all(
      coordinates
        // An ecosystem without a registry client keeps what its files record: not a failure.
        .filter((c) => !cached.has(coordinateKey(c.ecosystem, c.name, c.version)) && this.clients.has(c.ecosystem))
        .map(async (c) => {
          const key = coordinateKey(c.ecosystem, c.name, c.version);
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
    return { metadata, failed, counts: { ...counts }, ...this.reusable(metadata, failed.length === 0 && metadata.size === coordinates.length) };
  }

  reused(count: number): void {
    this.cache?.reused?.(count);
  }

  /** When the first of these entries goes stale in the cache, if every coordinate has one there. */
  private reusable(metadata: ReadonlyMap<string, PackageMetadata>, complete: boolean): { reusableUntil?: number } {
    const cache = this.cache;
    if (!complete || cache?.freshUntil === undefined || metadata.size === 0) return {};
    let until = Number.POSITIVE_INFINITY;
    for (const key of metadata.keys()) until = Math.min(until, cache.freshUntil(key));
    return until > Date.now() && Number.isFinite(until) ? { reusableUntil: until } : {};
  }
}
