import { and, gt, inArray, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { Database } from './client.js';
import { packageMetadata } from './schema/index.js';
import type { MetadataCache } from '../model/enrich-types.js';
import { METADATA_FORMAT, type PackageMetadata } from '../model/metadata.js';

export interface PgMetadataCacheOptions {
  /** How long a fetched version's metadata is trusted before it is fetched again. */
  readonly maxAgeMs?: number;
  /** Entries this process keeps in memory in front of Postgres (least recently used go first); 0: none. */
  readonly memoryEntries?: number;
}

/**
 * The service's metadata cache in Postgres, shared by every worker. A version's metadata barely
 * changes (deprecation can), so entries are trusted for `maxAgeMs` and then fetched again.
 *
 * In front of it, each process keeps the entries it read or wrote last in memory, each until the
 * Postgres entry would go stale: a lockfile seen again (CI runs the same one all day) costs no
 * Postgres read, nor the parse of its rows. Another process refreshing an entry meanwhile
 * changes nothing this one relies on: both copies are within their age.
 */
/**
 * The row key of a coordinate: prefixed with the stored shape's number, so rows written in an
 * older shape are never read (they age out like any other).
 */
export function storedCoordinate(key: string): string {
  return `f${METADATA_FORMAT}|${key}`;
}

export class PgMetadataCache implements MetadataCache {
  private readonly maxAgeMs: number;
  private readonly memory: LRUCache<string, PackageMetadata> | null;

  constructor(
    private readonly db: Database,
    options: PgMetadataCacheOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? 7 * 24 * 3600 * 1000;
    const entries = options.memoryEntries ?? 50_000;
    this.memory = entries > 0 ? new LRUCache({ max: entries, ttl: this.maxAgeMs }) : null;
  }

  async getMany(keys: readonly string[]): Promise<Map<string, PackageMetadata>> {
    const result = new Map<string, PackageMetadata>();
    const missing: string[] = [];
    for (const key of keys) {
      const held = this.memory?.get(key);
      if (held === undefined) missing.push(key);
      else result.set(key, held);
    }
    const keyOf = new Map(missing.map((key) => [storedCoordinate(key), key]));
    const stored = [...keyOf.keys()];
    for (let i = 0; i < stored.length; i += 5000) {
      const rows = await this.db
        .select({ coordinate: packageMetadata.coordinate, metadata: packageMetadata.metadata, fetchedAt: packageMetadata.fetchedAt })
        .from(packageMetadata)
        .where(
          and(
            inArray(packageMetadata.coordinate, stored.slice(i, i + 5000)),
            gt(packageMetadata.fetchedAt, sql`now() - make_interval(secs => ${this.maxAgeMs / 1000})`),
          ),
        );
      const now = Date.now();
      for (const row of rows) {
        const key = keyOf.get(row.coordinate);
        if (key === undefined) continue;
        result.set(key, row.metadata);
        const ttl = row.fetchedAt.getTime() + this.maxAgeMs - now;
        if (ttl > 0) this.memory?.set(key, row.metadata, { ttl });
      }
    }
    return result;
  }

  async setMany(entries: ReadonlyMap<string, PackageMetadata>): Promise<void> {
    const rows = [...entries].map(([key, metadata]) => ({ coordinate: storedCoordinate(key), metadata }));
    for (let i = 0; i < rows.length; i += 1000) {
      await this.db
        .insert(packageMetadata)
        .values(rows.slice(i, i + 1000))
        .onConflictDoUpdate({
          target: packageMetadata.coordinate,
          set: { metadata: sql`excluded.metadata`, fetchedAt: sql`now()` },
        });
    }
    for (const [key, metadata] of entries) this.memory?.set(key, metadata);
  }

  /** The memory copy's end of life, which is the Postgres entry's (0: not held in memory). */
  freshUntil(key: string): number {
    const left = this.memory?.getRemainingTTL(key) ?? 0;
    return left > 0 && Number.isFinite(left) ? Date.now() + left : 0;
  }
}
