import pLimit from 'p-limit';
import type { Coordinate, Enricher, EnrichmentResult, MetadataCache, MetadataClient, UnreachableRegistry } from '../model/enrich-types.js';
import { coordinateKey, type PackageMetadata } from '../model/metadata.js';
import { RegistryUnreachableError } from '../model/registry-unreachable.js';
import type { ProgressCounts } from '../model/types.js';

export interface RegistryEnricherOptions {
  /** Registry requests at once (16). */
  readonly concurrency?: number;
  /** Time one enrichment may take in all; coordinates still waiting then are left unenriched (60 s). */
  readonly budgetMs?: number;
  /** How long a coordinate whose fetch failed is answered as failed without asking again (30 s). */
  readonly negativeTtlMs?: number;
  /** Registry names by origin, for notices (`https://crates.io` → `crates`); else the ecosystem's id. */
  readonly registryNames?: ReadonlyMap<string, string>;
  /** The clock of the negative cache (tests move it instead of waiting). */
  readonly now?: () => number;
}

export const ENRICHMENT_DEFAULTS = { concurrency: 16, budgetMs: 60_000, negativeTtlMs: 30_000 } as const;

/** Failed coordinates the negative cache holds at most (the oldest go first). */
const NEGATIVE_ENTRIES = 10_000;

/** A fetch shared by every analysis asking for the coordinate, aborted once none waits for it any more. */
interface SharedFetch {
  readonly promise: Promise<PackageMetadata | null>;
  readonly controller: AbortController;
  waiting: number;
  settled: boolean;
}

/** Why an analysis stopped waiting for its remaining coordinates. */
class OutOfBudget extends Error {
  constructor(readonly budgetMs: number) {
    super(`registry enrichment did not finish within ${budgetMs} ms`);
    this.name = 'OutOfBudget';
  }
}

/** The fetch was abandoned by every analysis that waited for it. */
class Abandoned extends Error {}

/**
 * Registry enrichment of distinct coordinates of every ecosystem: one cache, then each ecosystem's
 * registry client under one concurrency limit. Fetches are shared in flight: two analyses asking
 * for the same coordinate at once cause one request, aborted only when neither waits any more. A
 * coordinate that cannot be fetched is reported, not fatal; one whose ecosystem has no client is
 * left as the lockfile recorded it.
 *
 * A registry that cannot be reached degrades the analysis and never stalls it: the HTTP client's
 * breaker fails its host's requests at once, a coordinate that just failed is not asked again for
 * a short while, and each enrichment has a budget after which what is still out is left unenriched.
 */
export class RegistryEnricher implements Enricher {
  private readonly inflight = new Map<string, SharedFetch>();
  /** Coordinates whose fetch failed, with the failure, until when they are answered as failed again. */
  private readonly negative = new Map<string, { readonly until: number; readonly error: unknown }>();
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly options: Required<Omit<RegistryEnricherOptions, 'registryNames'>> & { readonly registryNames: ReadonlyMap<string, string> };

  /**
   * @param clients each ecosystem's registry client, by ecosystem id (purl type)
   * @param options the concurrency, or the options
   */
  constructor(
    private readonly clients: ReadonlyMap<string, MetadataClient>,
    private readonly cache: MetadataCache | null,
    options: number | RegistryEnricherOptions = {},
  ) {
    const given = typeof options === 'number' ? { concurrency: options } : options;
    this.options = {
      concurrency: given.concurrency ?? ENRICHMENT_DEFAULTS.concurrency,
      budgetMs: given.budgetMs ?? ENRICHMENT_DEFAULTS.budgetMs,
      negativeTtlMs: given.negativeTtlMs ?? ENRICHMENT_DEFAULTS.negativeTtlMs,
      now: given.now ?? Date.now,
      registryNames: given.registryNames ?? new Map(),
    };
    this.limit = pLimit(this.options.concurrency);
  }

  /** The shared fetch of a coordinate, counting the caller among those waiting for it. */
  private join(c: Coordinate, key: string, client: MetadataClient): SharedFetch {
    let shared = this.inflight.get(key);
    if (shared === undefined) {
      const controller = new AbortController();
      const promise = this.limit(async () => {
        // Abandoned while queued: no request at all.
        controller.signal.throwIfAborted();
        return client.fetch(c.name, c.version, controller.signal);
      });
      const entry: SharedFetch = { promise, controller, waiting: 0, settled: false };
      promise.then(
        () => this.settle(key, entry),
        (error: unknown) => {
          this.settle(key, entry);
          if (!controller.signal.aborted && !(error instanceof RegistryUnreachableError && error.withoutRequest)) this.rememberFailure(key, error);
        },
      );
      this.inflight.set(key, entry);
      shared = entry;
    }
    shared.waiting++;
    return shared;
  }

  private settle(key: string, entry: SharedFetch): void {
    entry.settled = true;
    if (this.inflight.get(key) === entry) this.inflight.delete(key);
  }

  /** The caller stopped waiting: the last one out aborts the request. */
  private leave(key: string, entry: SharedFetch): void {
    if (--entry.waiting > 0 || entry.settled) return;
    if (this.inflight.get(key) === entry) this.inflight.delete(key);
    entry.controller.abort(new Abandoned());
  }

  private rememberFailure(key: string, error: unknown): void {
    if (this.options.negativeTtlMs <= 0) return;
    this.negative.delete(key);
    this.negative.set(key, { until: this.options.now() + this.options.negativeTtlMs, error });
    if (this.negative.size > NEGATIVE_ENTRIES) this.negative.delete(this.negative.keys().next().value as string);
  }

  /** The failure of a coordinate that failed a moment ago, if it did. */
  private failedRecently(key: string): { readonly error: unknown } | null {
    const held = this.negative.get(key);
    if (held === undefined) return null;
    if (held.until > this.options.now()) return held;
    this.negative.delete(key);
    return null;
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

    // The analysis stops waiting at its budget's end or when its caller aborts it, whichever is first.
    const budgetMs = this.options.budgetMs;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(new OutOfBudget(budgetMs)), budgetMs);
    timer.unref();
    const onAbort = (): void => stop.abort(signal?.reason);
    if (signal?.aborted === true) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const stopped = new Promise<never>((_resolve, reject) => {
      const fail = (): void => reject(stop.signal.reason instanceof Error ? stop.signal.reason : new Error('aborted', { cause: stop.signal.reason }));
      if (stop.signal.aborted) fail();
      stop.signal.addEventListener('abort', fail, { once: true });
    });
    stopped.catch(() => undefined);

    const fresh = new Map<string, PackageMetadata>();
    const why = new Failures(this.options.registryNames);
    try {
      await Promise.all(
        coordinates
          // An ecosystem without a registry client keeps what its files record: not a failure.
          .filter((c) => !cached.has(coordinateKey(c.ecosystem, c.name, c.version)) && this.clients.has(c.ecosystem))
          .map(async (c) => {
            const key = coordinateKey(c.ecosystem, c.name, c.version);
            const client = this.clients.get(c.ecosystem) as MetadataClient;
            try {
              signal?.throwIfAborted();
              const recent = this.failedRecently(key);
              if (recent !== null) throw recent.error;
              if (stop.signal.aborted) throw stop.signal.reason;
              const shared = this.join(c, key, client);
              let value: PackageMetadata | null;
              try {
                value = await Promise.race([shared.promise, stopped]);
              } finally {
                this.leave(key, shared);
              }
              if (value === null) {
                failed.push(key);
                why.other(key);
                counts.fetch_failed++;
              } else {
                metadata.set(key, value);
                fresh.set(key, value);
                counts.fetched++;
              }
            } catch (error) {
              signal?.throwIfAborted();
              failed.push(key);
              why.add(key, c, error);
              counts.fetch_failed++;
            }
            counts.coordinates_done++;
            onProgress({ ...counts });
          }),
      );
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    signal?.throwIfAborted();
    if (this.cache && fresh.size > 0) {
      // A cache that cannot be written costs a refetch next time, never this result.
      await this.cache.setMany(fresh).catch(() => undefined);
    }
    failed.sort();
    return {
      metadata,
      failed,
      counts: { ...counts },
      ...this.reusable(metadata, failed.length === 0 && metadata.size === coordinates.length),
      ...why.summary(),
    };
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

/** Why an enrichment's coordinates failed: hosts that could not be reached, the budget, anything else. */
class Failures {
  private readonly unreachable = new Map<string, { registry: string; origin: string; reason: string; coordinates: number }>();
  private outOfBudget: { budgetMs: number; coordinates: number } | null = null;
  private readonly otherwise: string[] = [];

  constructor(private readonly names: ReadonlyMap<string, string>) {}

  add(key: string, c: Coordinate, error: unknown): void {
    if (error instanceof OutOfBudget) {
      this.outOfBudget ??= { budgetMs: error.budgetMs, coordinates: 0 };
      this.outOfBudget.coordinates++;
    } else if (error instanceof RegistryUnreachableError) {
      const registry = this.names.get(error.origin) ?? c.ecosystem;
      const id = `${registry} ${error.origin}`;
      const held = this.unreachable.get(id);
      if (held === undefined) this.unreachable.set(id, { registry, origin: error.origin, reason: error.reason, coordinates: 1 });
      else held.coordinates++;
    } else {
      this.otherwise.push(key);
    }
  }

  other(key: string): void {
    this.otherwise.push(key);
  }

  summary(): Pick<EnrichmentResult, 'unreachable' | 'outOfBudget' | 'failedOtherwise'> {
    if (this.unreachable.size === 0 && this.outOfBudget === null) return {};
    const unreachable: UnreachableRegistry[] = [...this.unreachable.values()].sort((a, b) => b.coordinates - a.coordinates || a.origin.localeCompare(b.origin));
    return {
      ...(unreachable.length > 0 ? { unreachable } : {}),
      ...(this.outOfBudget === null ? {} : { outOfBudget: { ...this.outOfBudget } }),
      failedOtherwise: [...this.otherwise].sort(),
    };
  }
}
