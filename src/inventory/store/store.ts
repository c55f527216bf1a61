import { and, asc, desc, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/client.js';
import { blobs, blobTexts, inventories, inventoryEntries, inventoryRefs, type InventoryFacts } from '../../db/schema/index.js';
import type { Intent } from '../query/classify.js';
import type { StoredEntry } from '../query/query.js';
import type { BlobRecord, GrepFilter, InventoryKind, InventoryRow, NewInventory } from './records.js';

const columns = {
  id: inventories.id,
  kind: inventories.kind,
  identity: inventories.identity,
  registry: inventories.registry,
  packageName: inventories.packageName,
  version: inventories.version,
  state: inventories.state,
  failure: inventories.failure,
  attempt: inventories.attempt,
  fileCount: inventories.fileCount,
  totalBytes: inventories.totalBytes,
  facts: inventories.facts,
  preparationMs: inventories.preparationMs,
  startedAt: inventories.startedAt,
  finishedAt: inventories.finishedAt,
  updatedAt: inventories.updatedAt,
};

function row(r: typeof inventories.$inferSelect | Record<keyof typeof columns, unknown>): InventoryRow {
  return r as InventoryRow;
}

/** Locks the inventory row for this transaction if the attempt still holds it (preparing, same attempt). */
async function holdAttempt(tx: Transaction, id: string, attempt: number): Promise<boolean> {
  const [held] = await tx
    .select({ id: inventories.id })
    .from(inventories)
    .where(and(eq(inventories.id, id), eq(inventories.attempt, attempt), eq(inventories.state, 'preparing')))
    .for('update');
  return held !== undefined;
}

/** Postgres access for inventories, their entries and the content-addressed blobs. */
export class InventoryStore {
  constructor(private readonly db: Database) {}

  async byIdentity(identity: string): Promise<InventoryRow | null> {
    const [found] = await this.db.select(columns).from(inventories).where(eq(inventories.identity, identity));
    return found ? row(found) : null;
  }

  async get(id: string): Promise<InventoryRow | null> {
    const [found] = await this.db.select(columns).from(inventories).where(eq(inventories.id, id));
    return found ? row(found) : null;
  }

  /** The inventory of an identity, created (pending) when it did not exist yet. */
  async ensure(init: NewInventory): Promise<{ row: InventoryRow; created: boolean }> {
    const [created] = await this.db
      .insert(inventories)
      .values({
        kind: init.kind,
        identity: init.identity,
        registry: init.registry ?? null,
        packageName: init.packageName ?? null,
        version: init.version ?? null,
        facts: init.facts ?? {},
      })
      .onConflictDoNothing({ target: inventories.identity })
      .returning(columns);
    if (created) return { row: row(created), created: true };
    const existing = await this.byIdentity(init.identity);
    if (!existing) throw new Error(`inventory ${init.identity} vanished while being created`);
    return { row: existing, created: false };
  }

  /** A failed preparation goes back to pending (its next request retries it). */
  async retry(id: string): Promise<InventoryRow | null> {
    const [updated] = await this.db
      .update(inventories)
      .set({
        state: 'pending',
        failure: null,
        updatedAt: sql`now()`,
        // Attempts are counted from here: the fencing token keeps growing, the budget starts again.
        facts: sql`${inventories.facts} || jsonb_build_object('attemptsBefore', ${inventories.attempt})`,
      })
      .where(and(eq(inventories.id, id), eq(inventories.state, 'failed')))
      .returning(columns);
    return updated ? row(updated) : null;
  }

  /** Takes the inventory for a preparation attempt; null when it is no longer to be prepared. */
  async claim(id: string): Promise<InventoryRow | null> {
    const [claimed] = await this.db
      .update(inventories)
      .set({ state: 'preparing', attempt: sql`${inventories.attempt} + 1`, startedAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(inventories.id, id), inArray(inventories.state, ['pending', 'preparing'])))
      .returning(columns);
    return claimed ? row(claimed) : null;
  }

  async putBlobs(records: readonly BlobRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db
      .insert(blobs)
      .values(records.map((b) => ({ hash: b.hash, byteSize: b.byteSize, encoding: b.encoding, data: b.data })))
      .onConflictDoNothing({ target: blobs.hash });
    await this.putTexts(records.flatMap((b) => (b.text === undefined || b.text === null ? [] : [{ hash: b.hash, content: b.text }])));
  }

  /** Texts of stored blobs for grep's index (a blob stored before the index had none). */
  async putTexts(texts: readonly { hash: string; content: string }[]): Promise<void> {
    if (texts.length === 0) return;
    await this.db.insert(blobTexts).values([...texts]).onConflictDoNothing({ target: blobTexts.hash });
  }

  /**
   * Stored texts that may match, from the trigram index alone: `LIKE` (ILIKE) for a literal, `~`
   * (`~*`) for a regular expression already checked to mean at least what it means to RE2. At
   * most `cap` hashes; `complete` is false when there are more (the pattern is too common for the
   * index to narrow much, and the caller scans in path order instead). Across every inventory:
   * contents are shared, and a selective pattern stays selective.
   */
  async grepCandidates(filter: GrepFilter, cap: number): Promise<{ hashes: Set<string>; complete: boolean }> {
    const condition =
      filter.kind === 'like'
        ? sql`content ${filter.caseSensitive ? sql`LIKE` : sql`ILIKE`} ${filter.pattern}`
        : sql`content ${filter.caseSensitive ? sql`~` : sql`~*`} ${filter.pattern}`;
    return this.db.transaction(async (tx) => {
      // A prefilter may not take longer than the scan it saves: past this, PostgreSQL gives up.
      await tx.execute(sql.raw(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(filter.timeoutMs))}`));
      const rows = await tx.execute<{ hash: string }>(sql`SELECT hash FROM blob_texts WHERE ${condition} LIMIT ${cap + 1}`);
      return { hashes: new Set(rows.rows.slice(0, cap).map((r) => r.hash)), complete: rows.rows.length <= cap };
    });
  }

  /** Which of these contents have an indexed text. */
  async indexedTexts(hashes: readonly string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    const found = new Set<string>();
    // In chunks: one bind parameter per hash, and PostgreSQL takes at most 65,535 of them.
    for (let i = 0; i < hashes.length; i += 10_000) {
      const rows = await this.db.select({ hash: blobTexts.hash }).from(blobTexts).where(inArray(blobTexts.hash, hashes.slice(i, i + 10_000)));
      for (const r of rows) found.add(r.hash);
    }
    return found;
  }

  /** Indexed texts of some blobs (grep reads candidates in batches). */
  async texts(hashes: readonly string[]): Promise<Map<string, string>> {
    if (hashes.length === 0) return new Map();
    const rows = await this.db.select().from(blobTexts).where(inArray(blobTexts.hash, [...hashes]));
    return new Map(rows.map((r) => [r.hash, r.content]));
  }

  /** Stored blobs by hash (those that exist). */
  async blobsOf(hashes: readonly string[]): Promise<BlobRecord[]> {
    if (hashes.length === 0) return [];
    const rows = await this.db.select().from(blobs).where(inArray(blobs.hash, [...hashes]));
    return rows.map((r) => ({ hash: r.hash, byteSize: r.byteSize, encoding: r.encoding === 'gzip' ? 'gzip' : 'identity', data: r.data }));
  }

  /** Which of these hashes are stored already (their contents need not be sent again). */
  async knownBlobs(hashes: readonly string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    const found = await this.db.select({ hash: blobs.hash }).from(blobs).where(inArray(blobs.hash, [...hashes]));
    return new Set(found.map((b) => b.hash));
  }

  /**
   * Stores the entries and marks the inventory ready in one transaction, fenced on the attempt
   * that prepared it; false when another attempt took over (nothing is written then).
   */
  async complete(
    id: string,
    attempt: number,
    entries: readonly StoredEntry[],
    summary: { fileCount: number; totalBytes: number; preparationMs: number; facts: InventoryFacts },
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [held] = await tx
        .update(inventories)
        .set({
          state: 'ready',
          failure: null,
          fileCount: summary.fileCount,
          totalBytes: summary.totalBytes,
          preparationMs: summary.preparationMs,
          facts: summary.facts,
          finishedAt: sql`now()`,
          updatedAt: sql`now()`,
        })
        .where(and(eq(inventories.id, id), eq(inventories.attempt, attempt), eq(inventories.state, 'preparing')))
        .returning({ id: inventories.id });
      if (!held) return false;
      await tx.delete(inventoryEntries).where(eq(inventoryEntries.inventoryId, id));
      for (let i = 0; i < entries.length; i += 1000) {
        await tx.insert(inventoryEntries).values(entries.slice(i, i + 1000).map((e) => ({ inventoryId: id, ...e })));
      }
      return true;
    });
  }

  /**
   * Adds or replaces pages of a crawl in progress, fenced on its attempt; the row's updatedAt
   * and file count move with them (the generation listings reload on). False when another
   * attempt took over.
   */
  async upsertEntries(id: string, attempt: number, entries: readonly StoredEntry[]): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (!(await holdAttempt(tx, id, attempt))) return false;
      for (let i = 0; i < entries.length; i += 1000) {
        await tx
          .insert(inventoryEntries)
          .values(entries.slice(i, i + 1000).map((e) => ({ inventoryId: id, ...e })))
          .onConflictDoUpdate({
            target: [inventoryEntries.inventoryId, inventoryEntries.path],
            set: {
              kind: sql`excluded.kind`,
              byteSize: sql`excluded.byte_size`,
              lineCount: sql`excluded.line_count`,
              contentHash: sql`excluded.content_hash`,
              language: sql`excluded.language`,
              fileType: sql`excluded.file_type`,
              intent: sql`excluded.intent`,
              title: sql`excluded.title`,
            },
          });
      }
      await tx
        .update(inventories)
        .set({
          fileCount: sql`(SELECT count(*)::int FROM ${inventoryEntries} WHERE ${inventoryEntries.inventoryId} = ${id})`,
          updatedAt: sql`clock_timestamp()`,
        })
        .where(eq(inventories.id, id));
      return true;
    });
  }

  /**
   * Ends a crawl: ready, with its coverage in the facts. With `keep`, stored pages the crawl did
   * not see again are deleted (a crawl that covered the site); without, earlier pages stay.
   */
  async finishCrawl(id: string, attempt: number, facts: InventoryFacts, preparationMs: number, keep: readonly string[] | null): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (!(await holdAttempt(tx, id, attempt))) return false;
      if (keep !== null) {
        await tx.delete(inventoryEntries).where(and(eq(inventoryEntries.inventoryId, id), sql`NOT (${inventoryEntries.path} = ANY(${sql.param([...keep])}::text[]))`));
      }
      await tx
        .update(inventories)
        .set({
          state: 'ready',
          failure: null,
          facts,
          preparationMs,
          fileCount: sql`(SELECT count(*)::int FROM ${inventoryEntries} WHERE ${inventoryEntries.inventoryId} = ${id})`,
          finishedAt: sql`now()`,
          updatedAt: sql`clock_timestamp()`,
        })
        .where(eq(inventories.id, id));
      return true;
    });
  }

  /** A site crawled longer ago than `ageMs` goes back to pending (its pages stay served meanwhile). */
  async refresh(id: string, ageMs: number): Promise<InventoryRow | null> {
    const [updated] = await this.db
      .update(inventories)
      .set({ state: 'pending', updatedAt: sql`clock_timestamp()`, facts: sql`${inventories.facts} || jsonb_build_object('attemptsBefore', ${inventories.attempt})` })
      .where(and(eq(inventories.id, id), eq(inventories.state, 'ready'), lt(inventories.finishedAt, sql`now() - make_interval(secs => ${ageMs / 1000})`)))
      .returning(columns);
    return updated ? row(updated) : null;
  }

  /** Ends an attempt without entries: `failed` (retried on a later request) or `unavailable`. */
  async finishWithout(id: string, attempt: number, state: 'failed' | 'unavailable', failure: string, facts: InventoryFacts): Promise<boolean> {
    const updated = await this.db
      .update(inventories)
      .set({ state, failure, facts, finishedAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(inventories.id, id), eq(inventories.attempt, attempt), eq(inventories.state, 'preparing')))
      .returning({ id: inventories.id });
    return updated.length > 0;
  }

  async entries(id: string): Promise<StoredEntry[]> {
    const rows = await this.db
      .select({
        path: inventoryEntries.path,
        kind: inventoryEntries.kind,
        byteSize: inventoryEntries.byteSize,
        lineCount: inventoryEntries.lineCount,
        contentHash: inventoryEntries.contentHash,
        language: inventoryEntries.language,
        fileType: inventoryEntries.fileType,
        intent: inventoryEntries.intent,
        title: inventoryEntries.title,
      })
      .from(inventoryEntries)
      .where(eq(inventoryEntries.inventoryId, id));
    return rows.map((r) => ({ ...r, kind: r.kind === 'page' ? 'page' : 'file', intent: r.intent as Intent | null }));
  }

  async blob(hash: string): Promise<BlobRecord | null> {
    const [found] = await this.db.select().from(blobs).where(eq(blobs.hash, hash));
    return found ? { hash: found.hash, byteSize: found.byteSize, encoding: found.encoding === 'gzip' ? 'gzip' : 'identity', data: found.data } : null;
  }

  /** Versions of a package whose inventory is ready: retry candidates for a client. */
  async readyVersions(registry: string, packageName: string): Promise<string[]> {
    const rows = await this.db
      .select({ version: inventories.version })
      .from(inventories)
      .where(and(eq(inventories.registry, registry), eq(inventories.packageName, packageName), eq(inventories.state, 'ready'), isNotNull(inventories.version)))
      .orderBy(desc(inventories.finishedAt))
      .limit(50);
    return rows.flatMap((r) => (r.version === null ? [] : [r.version]));
  }

  /** Recent preparation durations of a kind, for estimates. */
  async recentPreparations(kind: InventoryKind, limit = 50): Promise<{ ms: number; fileCount: number | null }[]> {
    const rows = await this.db
      .select({ ms: inventories.preparationMs, fileCount: inventories.fileCount })
      .from(inventories)
      .where(and(eq(inventories.kind, kind), eq(inventories.state, 'ready'), isNotNull(inventories.preparationMs)))
      .orderBy(desc(inventories.finishedAt))
      .limit(limit);
    return rows.flatMap((r) => (r.ms === null ? [] : [{ ms: r.ms, fileCount: r.fileCount }]));
  }

  /** The inventory a repository ref was last indexed at, when it is ready. */
  async refPointer(repository: string, ref: string): Promise<InventoryRow | null> {
    const [found] = await this.db
      .select(columns)
      .from(inventoryRefs)
      .innerJoin(inventories, eq(inventories.id, inventoryRefs.inventoryId))
      .where(and(eq(inventoryRefs.repository, repository), eq(inventoryRefs.ref, ref), eq(inventories.state, 'ready')));
    return found ? row(found) : null;
  }

  async setRefPointer(repository: string, ref: string, inventoryId: string, commit: string): Promise<void> {
    await this.db
      .insert(inventoryRefs)
      .values({ repository, ref, inventoryId, commit })
      .onConflictDoUpdate({ target: [inventoryRefs.repository, inventoryRefs.ref], set: { inventoryId, commit, updatedAt: sql`now()` } });
  }

  /** Refs of a repository with a ready snapshot, newest first. */
  async indexedRefs(repository: string): Promise<{ ref: string; commit: string }[]> {
    return this.db
      .select({ ref: inventoryRefs.ref, commit: inventoryRefs.commit })
      .from(inventoryRefs)
      .innerJoin(inventories, eq(inventories.id, inventoryRefs.inventoryId))
      .where(and(eq(inventoryRefs.repository, repository), eq(inventories.state, 'ready')))
      .orderBy(desc(inventoryRefs.updatedAt))
      .limit(50);
  }

  /** Pending or preparing inventories untouched for `graceMs` (their queue entry may be gone). */
  async unfinishedOlderThan(graceMs: number, limit: number): Promise<InventoryRow[]> {
    const rows = await this.db
      .select(columns)
      .from(inventories)
      .where(and(inArray(inventories.state, ['pending', 'preparing']), lt(inventories.updatedAt, sql`now() - make_interval(secs => ${graceMs / 1000})`)))
      .orderBy(asc(inventories.updatedAt))
      .limit(limit);
    return rows.map(row);
  }
}
