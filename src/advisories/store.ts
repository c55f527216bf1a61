import { and, eq, ne, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { advisoryGenerations, advisorySources, type AdvisoryState } from '../db/schema/advisories.js';
import type { AdvisoryError } from './errors.js';

/**
 * The advisory mirror in Postgres. Writers (the maintenance sync, `pkgscope advisories import`)
 * hold one session-level advisory lock for their whole run, so across any number of processes
 * one writes at a time; each ecosystem is written into a fresh generation and swapped in by one
 * transaction (see src/db/schema/advisories.ts).
 */

/** Arbitrary but fixed, beside the migrations' key: every advisory writer serialises on it. */
const WRITE_LOCK_KEY = 0x706b_6761; // "pkga"

/**
 * Documents per INSERT: large enough to amortise round trips, small enough to keep memory flat.
 * A batch's texts are copied several times on their way to the socket (the array literal the
 * driver escapes, its message buffer growing by doubling), in V8's large-object space, which only
 * a full collection frees: 1,000 documents and 8 MB a batch let an import of 500,000 advisories
 * peak at 1 GB of RSS; a quarter of that costs a few seconds of round trips.
 */
const BATCH_DOCUMENTS = 250;
const BATCH_TEXT_CHARS = 1024 * 1024;

/** What `GET /v1/advisories` and `pkgscope advisories status` show per ecosystem. */
export interface AdvisorySourceStatus {
  readonly ecosystem: string;
  readonly state: AdvisoryState;
  readonly reason: string | null;
  readonly advisories: number;
  /** ISO 8601 (formatted by Postgres: OSV dates go back to year 1, which JavaScript's parsers of Postgres text get wrong). */
  readonly modifiedMax: string | null;
  readonly syncedAt: string | null;
  readonly origin: string | null;
}

/** An AdvisorySourceStatus as the API and the CLI's `--json` write it (snake case; a reason only when it failed). */
export function sourceStatusWire(s: AdvisorySourceStatus): {
  ecosystem: string;
  advisories: number;
  modified_max: string | null;
  synced_at: string | null;
  state: AdvisoryState;
  reason?: string;
} {
  return {
    ecosystem: s.ecosystem,
    advisories: s.advisories,
    modified_max: s.modifiedMax,
    synced_at: s.syncedAt,
    state: s.state,
    ...(s.state === 'failed' && s.reason !== null ? { reason: s.reason } : {}),
  };
}

const isoText = (column: typeof advisorySources.modifiedMax | typeof advisorySources.syncedAt) =>
  sql<string | null>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The columns of an AdvisorySourceStatus. */
const STATUS_COLUMNS = {
  ecosystem: advisorySources.ecosystem,
  state: advisorySources.state,
  reason: advisorySources.reason,
  advisories: advisorySources.advisories,
  modifiedMax: isoText(advisorySources.modifiedMax),
  syncedAt: isoText(advisorySources.syncedAt),
  origin: advisorySources.origin,
};

/** The validators and origin of the archive a generation came from. */
export interface GenerationSource {
  readonly etag?: string | null;
  readonly lastModified?: string | null;
  readonly origin: string;
}

export interface StagedDocument {
  readonly id: string;
  readonly modified: string;
  readonly text: string;
  /** Normalised package names of the generation's ecosystem the advisory affects. */
  readonly names: readonly string[];
}

/** A generation being written: invisible to readers until `commit`. */
export class StagedGeneration {
  private documents: StagedDocument[] = [];
  private chars = 0;
  /** The insert in flight: the next batch is read while Postgres writes this one. */
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    readonly ecosystem: string,
    readonly id: number,
  ) {}

  async add(document: StagedDocument): Promise<void> {
    this.documents.push(document);
    this.chars += document.text.length;
    if (this.documents.length >= BATCH_DOCUMENTS || this.chars >= BATCH_TEXT_CHARS) await this.flush();
  }

  /** Starts writing what is buffered once the previous batch is written. */
  async flush(): Promise<void> {
    const batch = this.documents;
    this.documents = [];
    this.chars = 0;
    await this.pending;
    if (batch.length === 0) return;
    this.pending = this.insert(batch);
    // A failure surfaces on the next flush or at commit; never unhandled meanwhile.
    this.pending.catch(() => undefined);
  }

  private async insert(batch: readonly StagedDocument[]): Promise<void> {
    // One document per id: a folder may hold two copies of one advisory; the newest wins.
    const byId = new Map<string, StagedDocument>();
    for (const d of batch) {
      const seen = byId.get(d.id);
      if (seen === undefined || Date.parse(d.modified) > Date.parse(seen.modified)) byId.set(d.id, d);
    }
    const docs = [...byId.values()];
    const names: string[] = [];
    const ids: string[] = [];
    for (const d of docs) {
      for (const name of d.names) {
        names.push(name);
        ids.push(d.id);
      }
    }
    const client = await this.db.$client.connect();
    try {
      await client.query('BEGIN');
      // A staged batch need not wait for its WAL flush: a crash loses the whole staged generation
      // anyway (it is never current). The swap itself commits synchronously.
      await client.query('SET LOCAL synchronous_commit = off');
      await client.query(
        `INSERT INTO advisory_documents (generation, id, modified, document)
         SELECT $1, * FROM unnest($2::text[], $3::timestamptz[], $4::text[])
         ON CONFLICT (generation, id) DO UPDATE SET modified = excluded.modified, document = excluded.document
         WHERE excluded.modified > advisory_documents.modified`,
        [this.id, docs.map((d) => d.id), docs.map((d) => d.modified), docs.map((d) => d.text)],
      );
      if (names.length > 0) {
        await client.query(
          `INSERT INTO advisory_packages (generation, name, advisory_id)
           SELECT $1, * FROM unnest($2::text[], $3::text[]) ON CONFLICT DO NOTHING`,
          [this.id, names, ids],
        );
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Writes what is left, then points the ecosystem at this generation and drops the older ones, in one transaction. */
  async commit(source: GenerationSource): Promise<AdvisorySourceStatus> {
    await this.flush();
    await this.pending;
    const status = await this.db.transaction(async (tx) => {
      const counted = await tx.execute<{ advisories: number }>(sql`SELECT count(*)::int AS advisories FROM advisory_documents WHERE generation = ${this.id}`);
      const advisories = counted.rows[0]?.advisories ?? 0;
      const modifiedMax = sql`(SELECT max(modified) FROM advisory_documents WHERE generation = ${this.id})`;
      const state: AdvisoryState = advisories === 0 ? 'empty' : 'ready';
      const values = {
        state,
        reason: null,
        generation: this.id,
        etag: source.etag ?? null,
        lastModified: source.lastModified ?? null,
        origin: source.origin,
        advisories,
        modifiedMax,
        syncedAt: sql`now()`,
        attemptedAt: sql`now()`,
      };
      const [row] = await tx
        .insert(advisorySources)
        .values({ ecosystem: this.ecosystem, ...values })
        .onConflictDoUpdate({ target: advisorySources.ecosystem, set: values })
        .returning(STATUS_COLUMNS);
      if (row === undefined) throw new Error('the advisory source row was not written');
      return row;
    });
    // Readers that started before the swap keep their snapshot of the old rows (MVCC); new ones read this generation.
    await this.db.delete(advisoryGenerations).where(and(eq(advisoryGenerations.ecosystem, this.ecosystem), ne(advisoryGenerations.id, this.id)));
    return status;
  }

  /** Drops what was written (the previous generation stays current). */
  async discard(): Promise<void> {
    this.documents = [];
    await this.pending.catch(() => undefined);
    await this.db.delete(advisoryGenerations).where(eq(advisoryGenerations.id, this.id));
  }
}

export class AdvisoryStore {
  constructor(readonly db: Database) {}

  /**
   * Runs `work` holding the writers' lock (a session lock: a writer that dies releases it).
   * `wait: false` answers null at once when another writer holds it.
   */
  async exclusively<T>(wait: boolean, work: () => Promise<T>): Promise<{ value: T } | null> {
    const client = await this.db.$client.connect();
    let locked = false;
    try {
      if (wait) {
        await client.query('SELECT pg_advisory_lock($1)', [WRITE_LOCK_KEY]);
        locked = true;
      } else {
        const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [WRITE_LOCK_KEY]);
        locked = result.rows[0]?.locked === true;
        if (!locked) return null;
      }
      // Whoever held the lock before is gone: a source it left `syncing` was interrupted.
      await this.db
        .update(advisorySources)
        .set({ state: 'failed', reason: 'interrupted: the previous sync or import stopped before it finished' })
        .where(eq(advisorySources.state, 'syncing'));
      return { value: await work() };
    } finally {
      if (locked) await client.query('SELECT pg_advisory_unlock($1)', [WRITE_LOCK_KEY]).catch(() => undefined);
      client.release();
    }
  }

  /** A new, empty generation for `ecosystem` (call within `exclusively`). */
  async stage(ecosystem: string): Promise<StagedGeneration> {
    const [row] = await this.db.insert(advisoryGenerations).values({ ecosystem }).returning({ id: advisoryGenerations.id });
    if (row === undefined) throw new Error('no advisory generation was made');
    return new StagedGeneration(this.db, ecosystem, row.id);
  }

  /** The current validators of an ecosystem's archive (null when nothing is loaded). */
  async validators(ecosystem: string): Promise<{ etag: string | null; lastModified: string | null } | null> {
    const [row] = await this.db
      .select({ etag: advisorySources.etag, lastModified: advisorySources.lastModified, generation: advisorySources.generation })
      .from(advisorySources)
      .where(eq(advisorySources.ecosystem, ecosystem));
    return row === undefined || row.generation === null ? null : { etag: row.etag, lastModified: row.lastModified };
  }

  /** Marks a sync of `ecosystem` begun; what is loaded stays loaded. */
  async markSyncing(ecosystem: string): Promise<void> {
    await this.db
      .insert(advisorySources)
      .values({ ecosystem, state: 'syncing', attemptedAt: sql`now()` })
      .onConflictDoUpdate({ target: advisorySources.ecosystem, set: { state: 'syncing', attemptedAt: sql`now()` } });
  }

  /** The archive did not change (304): the loaded set is current as of now. */
  async markCurrent(ecosystem: string): Promise<void> {
    await this.db
      .update(advisorySources)
      .set({ state: sql`CASE WHEN ${advisorySources.advisories} = 0 THEN 'empty' ELSE 'ready' END`, reason: null, syncedAt: sql`now()` })
      .where(eq(advisorySources.ecosystem, ecosystem));
  }

  /** The attempt failed: the previous generation (if any) stays current. */
  async markFailed(ecosystem: string, error: AdvisoryError): Promise<void> {
    const reason = `${error.code}: ${error.message}`;
    await this.db
      .insert(advisorySources)
      .values({ ecosystem, state: 'failed', reason, attemptedAt: sql`now()` })
      .onConflictDoUpdate({ target: advisorySources.ecosystem, set: { state: 'failed', reason, attemptedAt: sql`now()` } });
  }

  /**
   * Every ecosystem with a source row, and every one of `configured` (those never synced as
   * `empty`), by name.
   */
  async sources(configured: readonly string[] = []): Promise<AdvisorySourceStatus[]> {
    const rows: AdvisorySourceStatus[] = await this.db.select(STATUS_COLUMNS).from(advisorySources);
    const known = new Set(rows.map((r) => r.ecosystem));
    for (const ecosystem of configured) {
      if (!known.has(ecosystem)) rows.push({ ecosystem, state: 'empty', reason: null, advisories: 0, modifiedMax: null, syncedAt: null, origin: null });
    }
    return rows.sort((a, b) => (a.ecosystem < b.ecosystem ? -1 : a.ecosystem > b.ecosystem ? 1 : 0));
  }
}
