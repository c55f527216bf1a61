/**
 * The service's AdvisoryLookup: the Postgres mirror the maintenance sync and
 * `pkgscope advisories import` fill. Reads only the current generation of each ecosystem, so an
 * import in progress is never seen half done.
 */
import { LRUCache } from 'lru-cache';
import type { Queryable } from '../db/client.js';
import { sql } from 'drizzle-orm';
import { normalizeName } from './ecosystems.js';
import type { AdvisoryLookup, AdvisorySnapshot, OsvAdvisory } from './types.js';

/**
 * Parsed documents by generation and id: a warm analysis meets the same advisories again, and a
 * generation's documents never change (a sync writes a new generation), so entries never go stale.
 * Large enough for the advisories of a 10,000-component inventory.
 */
const CACHED_DOCUMENTS = 50_000;

export function pgAdvisoryLookup(db: Queryable): AdvisoryLookup {
  const parsed = new LRUCache<string, OsvAdvisory>({ max: CACHED_DOCUMENTS });
  return {
    async byPackages(ecosystem, names) {
      if (names.length === 0) return [];
      const keys = [...new Set(names.map((n) => normalizeName(ecosystem, n)))];
      // Ids first (an index scan of the names), then only the documents not parsed yet: a warm
      // analysis reads ids alone. A correlated `IN` over the documents cost 3.5 M heap fetches.
      for (let attempt = 0; ; attempt++) {
        const ids = await db.execute<{ generation: number | string; id: string }>(sql`
          SELECT DISTINCT s.generation, p.advisory_id AS id
          FROM advisory_sources s
          JOIN advisory_packages p ON p.generation = s.generation
          WHERE s.ecosystem = ${ecosystem} AND p.name = ANY(${sql.param(keys)}::text[])
          ORDER BY id`);
        const generation = ids.rows[0]?.generation;
        if (generation === undefined) return [];
        const missing = ids.rows.filter((row) => !parsed.has(`${row.generation}/${row.id}`)).map((row) => row.id);
        if (missing.length > 0) {
          const documents = await db.execute<{ id: string; document: string }>(sql`
            SELECT id, document FROM advisory_documents WHERE generation = ${generation} AND id = ANY(${sql.param(missing)}::text[])`);
          for (const row of documents.rows) parsed.set(`${generation}/${row.id}`, JSON.parse(row.document) as OsvAdvisory);
        }
        const found = ids.rows.flatMap((row) => {
          const advisory = parsed.get(`${row.generation}/${row.id}`);
          return advisory === undefined ? [] : [advisory];
        });
        // A sync swapped the generation (and deleted the old one) between the two statements: read again.
        if (found.length === ids.rows.length || attempt === 2) return found;
      }
    },
    async snapshots() {
      // Formatted by Postgres: OSV dates go back to year 1 (Go's vulndb writes 0001-01-01), which JavaScript's parsers of Postgres text get wrong.
      const result = await db.execute<{ ecosystem: string; advisories: number; modified_max: string | null; synced_at: string | null }>(sql`
        SELECT ecosystem, advisories,
          to_char(modified_max AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS modified_max,
          to_char(synced_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS synced_at
        FROM advisory_sources
        WHERE generation IS NOT NULL ORDER BY ecosystem`);
      return result.rows.map(
        (row): AdvisorySnapshot => ({ ecosystem: row.ecosystem, advisories: row.advisories, modifiedMax: row.modified_max, syncedAt: row.synced_at }),
      );
    },
  };
}
