import type { PackageMetadata } from './metadata.js';
import type { ProgressCounts } from './types.js';

/** A distinct registry package version to enrich. */
export interface Coordinate {
  /** The ecosystem (purl type) whose registry knows it. */
  readonly ecosystem: string;
  readonly name: string;
  readonly version: string;
}

export interface EnrichmentResult {
  readonly metadata: ReadonlyMap<string, PackageMetadata>;
  /** Keys (see `coordinateKey`) of coordinates whose metadata could not be fetched. */
  readonly failed: readonly string[];
  /** The last counts reported to `onProgress`, for the analysis's own (an enricher may leave them out). */
  readonly counts?: ProgressCounts;
  /**
   * Until when (epoch ms) the caller may answer these same coordinates with this metadata without
   * asking again: when the first of them would go stale in the enricher's cache. Absent: never
   * (a failure among them, or a cache that cannot tell).
   */
  readonly reusableUntil?: number;
  /** Registry hosts that could not be connected to, each with the coordinates of `failed` it left unenriched. */
  readonly unreachable?: readonly UnreachableRegistry[];
  /** The coordinates of `failed` still waiting when the enrichment budget ran out. */
  readonly outOfBudget?: { readonly budgetMs: number; readonly coordinates: number };
  /** `failed` less the coordinates `unreachable` and `outOfBudget` account for; absent: all of `failed`. */
  readonly failedOtherwise?: readonly string[];
  /** Registry coordinates no registry was asked about (an analysis without one: the CLI's --offline). */
  readonly notConsulted?: number;
}

/** A registry host an enrichment could not connect to. */
export interface UnreachableRegistry {
  /** What people call the registry: its `PACKAGE_REGISTRIES` key (`crates`, `pypi`), else the ecosystem (`npm`). */
  readonly registry: string;
  /** `scheme://host[:port]`: no path, no credentials. */
  readonly origin: string;
  /** The connection failure's code (`ECONNREFUSED`, `ENOTFOUND`, `UND_ERR_CONNECT_TIMEOUT`…). */
  readonly reason: string;
  /** Coordinates left unenriched because of it. */
  readonly coordinates: number;
}

/** Fetches registry metadata for coordinates; one coordinate's failure never fails the batch. */
export interface Enricher {
  enrich(
    coordinates: readonly Coordinate[],
    onProgress: (counts: ProgressCounts) => void,
    signal: AbortSignal | undefined,
  ): Promise<EnrichmentResult>;
  /** `count` coordinates were answered from a copy of an earlier result (see `reusableUntil`): cache hits all the same. */
  reused?(count: number): void;
}

/** Reads one package version's metadata from a registry; null when the registry has no such version. */
export interface MetadataClient {
  fetch(name: string, version: string, signal?: AbortSignal): Promise<PackageMetadata | null>;
}

/** Where fetched metadata is kept between analyses (Postgres in the service, disk in the CLI). */
export interface MetadataCache {
  getMany(keys: readonly string[]): Promise<Map<string, PackageMetadata>>;
  setMany(entries: ReadonlyMap<string, PackageMetadata>): Promise<void>;
  /** Until when (epoch ms) an entry just read or written stays fresh; 0 when the cache cannot tell. */
  freshUntil?(key: string): number;
  /** `count` lookups were answered from a copy of this cache's entries (an analysis thread's memo). */
  reused?(count: number): void;
}
