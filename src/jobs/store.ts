import { and, eq, fillPlaceholders, gt, gte, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { QueryResultRow } from 'pg';
import type { Database, Queryable } from '../db/client.js';
import { lockfileJobInputs, lockfileJobResults, lockfileJobs, type StoredInputFile } from '../db/schema/index.js';
import type { AnalysisEnvironment } from '../sbom/environment.js';
import type { FailureCode, FileProblem, InputFile, OutputFormat, ProgressCounts } from '../sbom/types.js';
import { isTerminal, toSnapshot, type JobPhase, type JobSnapshot } from './snapshot.js';

export interface NewJob {
  readonly accountId: string;
  readonly format: OutputFormat;
  readonly files: readonly InputFile[];
  /** The request's target environment; null: the documented defaults. */
  readonly environment: AnalysisEnvironment | null;
  readonly totalBytes: number;
  readonly idempotencyKey: string | null;
  readonly requestHash: string;
  readonly parserContract: string;
  readonly ttlSeconds: number;
}

export interface JobInputs {
  readonly files: readonly InputFile[];
  readonly environment: AnalysisEnvironment | null;
}

export type CreateOutcome =
  | { readonly kind: 'created'; readonly snapshot: JobSnapshot }
  | { readonly kind: 'existing'; readonly snapshot: JobSnapshot }
  | { readonly kind: 'conflict' };

export type ClaimOutcome =
  /** `inputs`: the job's execution record (files, environment); null when it is gone. */
  | { readonly kind: 'claimed'; readonly claim: Claim; readonly inputs: JobInputs | null }
  | { readonly kind: 'crashed' | 'exhausted'; readonly snapshot: JobSnapshot }
  | { readonly kind: 'finished'; readonly snapshot: JobSnapshot | null };

/** What a worker holds after claiming a job: its fencing token is `attempt`. */
export interface Claim {
  readonly snapshot: JobSnapshot;
  readonly attempt: number;
  readonly format: OutputFormat;
  readonly parserContract: string;
}

export interface StoredResult {
  readonly mediaType: string;
  readonly document: string;
}

export type ResultLookup =
  | { readonly kind: 'missing' }
  | { readonly kind: 'pending' }
  | { readonly kind: 'failed'; readonly code: FailureCode; readonly problems: readonly FileProblem[] }
  | { readonly kind: 'ready'; readonly result: StoredResult };

const snapshotColumns = {
  id: lockfileJobs.id,
  format: lockfileJobs.format,
  state: lockfileJobs.state,
  phase: lockfileJobs.phase,
  attempt: lockfileJobs.attempt,
  revision: lockfileJobs.revision,
  counts: lockfileJobs.counts,
  error: lockfileJobs.error,
  expiresAt: lockfileJobs.expiresAt,
};

/**
 * A row of `snapshotColumns` as a raw statement returning them under their keys gives it: the
 * driver leaves timestamps as text (drizzle maps them only in its own queries).
 */
type SnapshotRow = Omit<{ [K in keyof typeof snapshotColumns]: (typeof snapshotColumns)[K]['_']['data'] }, 'expiresAt'> & { expiresAt: string };

/** A column's bare name, as the SET list of an UPDATE and the column list of an INSERT take it. */
const name = (column: { readonly name: string }) => sql.identifier(column.name);

/** `snapshotColumns` under their keys, for the RETURNING of a raw statement (built once). */
const SNAPSHOT_RETURNING = sql.join(
  Object.entries(snapshotColumns).map(([key, column]) => sql`${name(column)} AS ${sql.identifier(key)}`),
  sql`, `,
);

/** The snapshot of a raw statement's row: the driver leaves its timestamp as text (or a Date). */
const rawSnapshot = (row: Omit<SnapshotRow, 'expiresAt'> & { readonly expiresAt: string | Date }): JobSnapshot => toSnapshot({ ...row, expiresAt: new Date(row.expiresAt) });

const notExpired = gt(lockfileJobs.expiresAt, sql`now()`);

/**
 * A statement built once from drizzle SQL with placeholders and run as a named (prepared)
 * statement: drizzle builds no text per call, and Postgres parses it once per session (for the
 * terminal write, about 0.14 ms of the backend's CPU each time). Drizzle's query builder has no
 * data-modifying CTE, so these are raw SQL and the text comes from its dialect.
 */
interface NamedStatement {
  readonly name: string;
  readonly text: string;
  readonly params: readonly unknown[];
}

function namedStatement(name: string, query: SQL): NamedStatement {
  const { sql: text, params } = new PgDialect().sqlToQuery(query);
  return { name, text, params };
}

async function runNamed<Row extends QueryResultRow>(db: Database, statement: NamedStatement, values: Record<string, unknown>): Promise<Row[]> {
  const { rows } = await db.$client.query<Row>({ name: statement.name, text: statement.text, values: fillPlaceholders([...statement.params], values) });
  return rows;
}

/** The claim of a queued job with its execution record, in one statement (a round trip fewer per job than the claim and then the read of the inputs). */
const CLAIM_WITH_INPUTS = (() => {
  const j = lockfileJobs;
  const i = lockfileJobInputs;
  return namedStatement('job_claim_with_inputs', sql`
    WITH claimed AS (
      UPDATE ${j} SET ${name(j.revision)} = ${j.revision} + 1, ${name(j.updatedAt)} = now(), ${name(j.attempt)} = ${j.attempt} + 1,
        ${name(j.state)} = 'running', ${name(j.phase)} = 'resolving', ${name(j.startedAt)} = coalesce(${j.startedAt}, now())
      WHERE ${j.id} = ${sql.placeholder('id')} AND ${j.expiresAt} > now() AND ${j.state} = 'queued' AND ${j.attempt} < ${sql.placeholder('maxAttempts')}
      RETURNING ${SNAPSHOT_RETURNING}, ${name(j.parserContract)} AS "parserContract"
    )
    SELECT claimed.*, ${i}.${name(i.files)} AS "files", ${i}.${name(i.environment)} AS "environment"
    FROM claimed LEFT JOIN ${i} ON ${i}.${name(i.jobId)} = claimed."id"`);
})();

/** What the insert of a job takes: the job's columns, the files and environment as JSON text. */
const INSERT_VALUES = ['accountId', 'format', 'parserContract', 'idempotencyKey', 'requestHash', 'ttlSeconds', 'files', 'environment', 'totalBytes'] as const;
type InsertValues = Readonly<Record<(typeof INSERT_VALUES)[number], unknown>>;

function insertValues(job: NewJob): InsertValues {
  const { accountId, format, parserContract, idempotencyKey, requestHash, ttlSeconds, totalBytes } = job;
  const environment = job.environment === null ? null : JSON.stringify(job.environment);
  return { accountId, format, parserContract, idempotencyKey, requestHash, ttlSeconds, files: JSON.stringify(job.files), environment, totalBytes };
}

/** The job and its execution record in one statement, over values (in a transaction) or placeholders (the named statement). */
function insertJob(v: InsertValues): SQL {
  const j = lockfileJobs;
  const i = lockfileJobInputs;
  return sql`
    WITH job AS (
      INSERT INTO ${j} (${name(j.accountId)}, ${name(j.format)}, ${name(j.parserContract)}, ${name(j.idempotencyKey)}, ${name(j.requestHash)}, ${name(j.expiresAt)})
      VALUES (${v.accountId}, ${v.format}, ${v.parserContract}, ${v.idempotencyKey}, ${v.requestHash}, now() + make_interval(secs => ${v.ttlSeconds}))
      RETURNING ${SNAPSHOT_RETURNING}
    ), inputs AS (
      INSERT INTO ${i} (${name(i.jobId)}, ${name(i.files)}, ${name(i.environment)}, ${name(i.totalBytes)})
      SELECT "id", ${v.files}::jsonb, ${v.environment}::jsonb, ${v.totalBytes} FROM job
    )
    SELECT * FROM job`;
}

const INSERT_JOB = namedStatement('job_insert', insertJob(Object.fromEntries(INSERT_VALUES.map((key) => [key, sql.placeholder(key)])) as InsertValues));

/**
 * The result and the terminal snapshot together, or neither when fenced out: one statement (the
 * update and the insert as data-modifying CTEs) where a transaction took four round trips.
 */
const SUCCEED = (() => {
  const j = lockfileJobs;
  const r = lockfileJobResults;
  const p = sql.placeholder;
  return namedStatement('job_succeed', sql`
    WITH done AS (
      UPDATE ${j} SET ${name(j.revision)} = ${j.revision} + 1, ${name(j.updatedAt)} = now(), ${name(j.state)} = 'succeeded',
        ${name(j.phase)} = 'succeeded', ${name(j.counts)} = ${p('counts')}::jsonb, ${name(j.error)} = NULL, ${name(j.finishedAt)} = now()
      WHERE ${j.id} = ${p('id')} AND ${j.attempt} = ${p('attempt')} AND ${j.state} = 'running'
      RETURNING ${SNAPSHOT_RETURNING}
    ), stored AS (
      INSERT INTO ${r} (${name(r.jobId)}, ${name(r.mediaType)}, ${name(r.document)}, ${name(r.byteSize)})
      SELECT "id", ${p('mediaType')}, ${p('document')}, ${p('byteSize')} FROM done
      ON CONFLICT (${name(r.jobId)}) DO UPDATE SET ${name(r.mediaType)} = excluded.${name(r.mediaType)},
        ${name(r.document)} = excluded.${name(r.document)}, ${name(r.byteSize)} = excluded.${name(r.byteSize)}
    )
    SELECT * FROM done`);
})();

type ClaimRow = Omit<SnapshotRow, 'expiresAt'> & {
  readonly expiresAt: string | Date;
  readonly parserContract: string;
  /** Null when the execution record is gone (the column itself is never null). */
  readonly files: StoredInputFile[] | null;
  readonly environment: AnalysisEnvironment | null;
};
const bump = { revision: sql`${lockfileJobs.revision} + 1`, updatedAt: sql`now()` };

/**
 * Postgres access for lockfile jobs. Every write by a worker is fenced on the attempt it claimed:
 * a write from an older attempt matches no row and changes nothing.
 */
export class JobStore {
  /**
   * The statements every job and every status poll runs, built once: drizzle's query building
   * cost about a third of a millisecond of CPU per call, and a prepared statement is also parsed
   * once per Postgres session.
   */
  private readonly prepared;

  constructor(private readonly db: Database) {
    const id = sql.placeholder('id');
    const attempt = sql.placeholder('attempt');
    const heldBy = and(eq(lockfileJobs.id, id), eq(lockfileJobs.attempt, attempt), eq(lockfileJobs.state, 'running'));
    this.prepared = {
      findForOwner: db
        .select(snapshotColumns)
        .from(lockfileJobs)
        .where(and(eq(lockfileJobs.id, id), eq(lockfileJobs.accountId, sql.placeholder('accountId')), notExpired))
        .prepare('job_find_for_owner'),
      progress: db
        .update(lockfileJobs)
        .set({ ...bump, phase: sql`${sql.placeholder('phase')}`, counts: sql`${sql.placeholder('counts')}::jsonb` })
        .where(heldBy)
        .returning(snapshotColumns)
        .prepare('job_progress'),
    };
  }

  /**
   * Writes the job, its execution record and parser contract in one transaction. With an
   * idempotency key, a replay of the same request returns the existing job; a different request
   * under the same key is a conflict. An expired job frees its key.
   */
  async create(job: NewJob): Promise<CreateOutcome> {
    const idempotencyKey = job.idempotencyKey;
    if (idempotencyKey === null) return { kind: 'created', snapshot: await this.insert(this.db, job) };
    return this.db.transaction(async (tx) => {
      const key = and(eq(lockfileJobs.accountId, job.accountId), eq(lockfileJobs.idempotencyKey, idempotencyKey));
      // Serialise concurrent submissions with the same key on the unique index.
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${job.accountId}:${idempotencyKey}`}, 0))`);
      const [existing] = await tx
        .select({ ...snapshotColumns, requestHash: lockfileJobs.requestHash })
        .from(lockfileJobs)
        .where(key);
      if (existing && existing.expiresAt.getTime() > Date.now()) {
        return existing.requestHash === job.requestHash ? { kind: 'existing', snapshot: toSnapshot(existing) } : { kind: 'conflict' };
      }
      if (existing) await tx.delete(lockfileJobs).where(eq(lockfileJobs.id, existing.id));
      return { kind: 'created', snapshot: await this.insert(tx, job) };
    });
  }

  /** The job and its execution record in one statement (atomic as any statement), alone or in a transaction. */
  private async insert(db: Queryable, job: NewJob): Promise<JobSnapshot> {
    const values = insertValues(job);
    const rows = db === this.db ? await runNamed<SnapshotRow>(this.db, INSERT_JOB, values) : (await db.execute<SnapshotRow>(insertJob(values))).rows;
    const [row] = rows;
    if (!row) throw new Error('job insert returned no row');
    return rawSnapshot(row);
  }

  /** The latest snapshot of a job the account owns; null when missing, expired or someone else's. */
  async findForOwner(id: string, accountId: string): Promise<JobSnapshot | null> {
    const [row] = await this.prepared.findForOwner.execute({ id, accountId });
    return row ? toSnapshot(row) : null;
  }

  async get(id: string): Promise<JobSnapshot | null> {
    const [row] = await this.db.select(snapshotColumns).from(lockfileJobs).where(eq(lockfileJobs.id, id));
    return row ? toSnapshot(row) : null;
  }

  /**
   * Takes the job for a new attempt (attempt + 1), never past `maxAttempts`:
   * - `claimed`: the job was queued; this worker holds the new attempt.
   * - `crashed`: the job was still `running`, so the worker of that attempt died (or lost its
   *   queue lock). The attempt counts; the job goes back to `queued` and the caller retries it
   *   after a backoff, so a job that kills its workers is not taken first by each fresh one.
   * - `exhausted`: no attempt is left; the job is failed with `execution_failed` (attempt
   *   unchanged, so no snapshot ever shows more attempts than allowed).
   * - `finished`: terminal (the snapshot, to publish again: its first publish may have been
   *   lost with the worker that committed it), or null when expired or gone.
   */
  async claim(id: string, maxAttempts: number): Promise<ClaimOutcome> {
    const open = and(eq(lockfileJobs.id, id), notExpired);
    const [row] = await runNamed<ClaimRow>(this.db, CLAIM_WITH_INPUTS, { id, maxAttempts });
    if (row) {
      const claim = { snapshot: rawSnapshot(row), attempt: row.attempt, format: row.format as OutputFormat, parserContract: row.parserContract };
      const inputs = row.files === null ? null : { files: row.files, environment: row.environment };
      return { kind: 'claimed', claim, inputs };
    }
    const [exhausted] = await this.db
      .update(lockfileJobs)
      .set({ ...bump, state: 'failed', phase: 'failed', error: 'execution_failed', finishedAt: sql`now()` })
      .where(and(open, inArray(lockfileJobs.state, ['queued', 'running']), gte(lockfileJobs.attempt, maxAttempts)))
      .returning(snapshotColumns);
    if (exhausted) return { kind: 'exhausted', snapshot: toSnapshot(exhausted) };
    const [crashed] = await this.db
      .update(lockfileJobs)
      .set({ ...bump, state: 'queued', phase: 'queued' })
      .where(and(open, eq(lockfileJobs.state, 'running')))
      .returning(snapshotColumns);
    if (crashed) return { kind: 'crashed', snapshot: toSnapshot(crashed) };
    const [current] = await this.db.select(snapshotColumns).from(lockfileJobs).where(open);
    const snapshot = current ? toSnapshot(current) : null;
    return { kind: 'finished', snapshot: snapshot !== null && isTerminal(snapshot.state) ? snapshot : null };
  }

  /** A progress write of the attempt holding the job; null when that attempt was fenced out. */
  async progress(id: string, attempt: number, phase: JobPhase, counts: ProgressCounts): Promise<JobSnapshot | null> {
    // The statement's counts parameter is jsonb text (a placeholder in `set` bypasses the column's encoder).
    const [row] = await this.prepared.progress.execute({ id, attempt, phase, counts: JSON.stringify(counts) });
    return row ? toSnapshot(row) : null;
  }

  /** Stores the result and the terminal snapshot together (SUCCEED), or neither when fenced out. */
  async succeed(
    id: string,
    attempt: number,
    result: StoredResult & { byteSize: number },
    counts: ProgressCounts,
  ): Promise<JobSnapshot | null> {
    const { mediaType, document, byteSize } = result;
    const [row] = await runNamed<SnapshotRow>(this.db, SUCCEED, { id, attempt, counts: JSON.stringify(counts), mediaType, document, byteSize });
    return row ? rawSnapshot(row) : null;
  }

  async fail(id: string, attempt: number, code: FailureCode, problems: readonly FileProblem[] = []): Promise<JobSnapshot | null> {
    const [row] = await this.db
      .update(lockfileJobs)
      .set({ ...bump, state: 'failed', phase: 'failed', error: code, diagnostics: problems.length > 0 ? [...problems] : null, finishedAt: sql`now()` })
      .where(this.held(id, attempt))
      .returning(snapshotColumns);
    return row ? toSnapshot(row) : null;
  }

  /**
   * Hands the job back at shutdown: it did not fail, so the attempt is given back too (the next
   * claim takes the same number again). Reusing the number is safe: the releasing worker writes
   * nothing after this, and any other worker that took over meanwhile holds a higher attempt.
   */
  async release(id: string, attempt: number): Promise<JobSnapshot | null> {
    const [row] = await this.db
      .update(lockfileJobs)
      .set({ ...bump, state: 'queued', phase: 'queued', attempt: sql`${lockfileJobs.attempt} - 1` })
      .where(this.held(id, attempt))
      .returning(snapshotColumns);
    return row ? toSnapshot(row) : null;
  }

  /** Back to the queue after a transient failure; the next claim takes a new attempt. */
  async requeue(id: string, attempt: number): Promise<JobSnapshot | null> {
    const [row] = await this.db
      .update(lockfileJobs)
      .set({ ...bump, state: 'queued', phase: 'queued' })
      .where(this.held(id, attempt))
      .returning(snapshotColumns);
    return row ? toSnapshot(row) : null;
  }

  private held(id: string, attempt: number) {
    return and(eq(lockfileJobs.id, id), eq(lockfileJobs.attempt, attempt), eq(lockfileJobs.state, 'running'));
  }

  async result(id: string, accountId: string): Promise<ResultLookup> {
    const [row] = await this.db
      .select({
        state: lockfileJobs.state,
        error: lockfileJobs.error,
        diagnostics: lockfileJobs.diagnostics,
        mediaType: lockfileJobResults.mediaType,
        document: lockfileJobResults.document,
      })
      .from(lockfileJobs)
      .leftJoin(lockfileJobResults, eq(lockfileJobResults.jobId, lockfileJobs.id))
      .where(and(eq(lockfileJobs.id, id), eq(lockfileJobs.accountId, accountId), notExpired));
    if (!row) return { kind: 'missing' };
    if (row.state === 'failed') return { kind: 'failed', code: (row.error ?? 'execution_failed') as FailureCode, problems: row.diagnostics ?? [] };
    if (row.state !== 'succeeded' || row.document === null || row.mediaType === null) return { kind: 'pending' };
    return { kind: 'ready', result: { mediaType: row.mediaType, document: row.document } };
  }

  /** Unfinished, unexpired jobs not written to for `graceMs`: candidates for re-enqueueing. */
  async unfinishedOlderThan(graceMs: number, limit: number): Promise<{ id: string; state: string }[]> {
    return this.db
      .select({ id: lockfileJobs.id, state: lockfileJobs.state })
      .from(lockfileJobs)
      .where(
        and(
          inArray(lockfileJobs.state, ['queued', 'running']),
          lt(lockfileJobs.updatedAt, sql`now() - make_interval(secs => ${graceMs / 1000})`),
          notExpired,
        ),
      )
      .orderBy(lockfileJobs.updatedAt)
      .limit(limit);
  }

  /** Deletes up to `batch` expired jobs (inputs and results go with them); returns how many. */
  async deleteExpired(batch: number): Promise<number> {
    const expired = this.db
      .select({ id: lockfileJobs.id })
      .from(lockfileJobs)
      .where(lte(lockfileJobs.expiresAt, sql`now()`))
      .limit(batch);
    const deleted = await this.db
      .delete(lockfileJobs)
      .where(inArray(lockfileJobs.id, expired))
      .returning({ id: lockfileJobs.id });
    return deleted.length;
  }
}
