import { and, gt, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { packageMetadata } from '../db/schema/index.js';
import type { MetadataCache } from '../sbom/enrich-types.js';
import type { PackageMetadata } from '../sbom/metadata.js';

/**
 * The service's metadata cache in Postgres, shared by every worker. A version's metadata barely
 * changes (deprecation can), so entries are trusted for `maxAgeMs` and then fetched again.
 */
export class PgMetadataCache implements MetadataCache {
  constructor(
    private readonly db: Database,
    private readonly maxAgeMs = 7 * 24 * 3600 * 1000,
  ) {}

  async getMany(keys: readonly string[]): Promise<Map<string, PackageMetadata>> {
    const result = new Map<string, PackageMetadata>();
    for (let i = 0; i < keys.length; i += 5000) {
      const rows = await this.db
        .select({ coordinate: packageMetadata.coordinate, metadata: packageMetadata.metadata })
        .from(packageMetadata)
        .where(
          and(
            inArray(packageMetadata.coordinate, keys.slice(i, i + 5000)),
            gt(packageMetadata.fetchedAt, sql`now() - make_interval(secs => ${this.maxAgeMs / 1000})`),
          ),
        );
      for (const row of rows) result.set(row.coordinate, row.metadata);
    }
    return result;
  }

  async setMany(entries: ReadonlyMap<string, PackageMetadata>): Promise<void> {
    const rows = [...entries].map(([coordinate, metadata]) => ({ coordinate, metadata }));
    for (let i = 0; i < rows.length; i += 1000) {
      await this.db
        .insert(packageMetadata)
        .values(rows.slice(i, i + 1000))
        .onConflictDoUpdate({
          target: packageMetadata.coordinate,
          set: { metadata: sql`excluded.metadata`, fetchedAt: sql`now()` },
        });
    }
  }
}
