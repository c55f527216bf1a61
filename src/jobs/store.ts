import { and, eq, gt, gte, inArray, lt, lte, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client.js';
import { lockfileJobResults, lockfileJobs } from '../db/schema/index.js';
import type { AnalysisEnvironment } from '../model/environment.js';
import type { FailureCode, FileProblem, InputFile, OutputFormat, ProgressCounts } from '../model/types.js';
import { isTerminal, toSnapshot, type JobPhase, type JobSnapshot } from './snapshot.js';
import { CLAIM_WITH_INPUTS, INSERT_JOB, insertJob, rawSnapshot, runNamed, snapshotColumns, SUCCEED, type ClaimRow, type InsertValues, type SnapshotRow } from './statements.js';

export interface NewJob {
  readonly accountId: string;
  readonly format: OutputFormat;
  readonly files: readonly InputFile[];
  /** The request's target environment; null: the documented defaults. */
  readonly environment: AnalysisEnvironment | null;
  /** Whether the components are to be matched against advisories (default false). */
  readonly vulnerabilities?: boolean;
  readonly totalBytes: number;
  readonly idempotencyKey: string | null;
  readonly requestHash: string;
  readonly parserContract: string;
  readonly ttlSeconds: number;
}

export interface JobInputs {
  readonly files: readonly InputFile[];
  readonly environment: AnalysisEnvironment | null;
  readonly vulnerabilities: boolean;
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

const notExpired = gt(lockfileJobs.expiresAt, sql`now()`);

/** The statement values of a new job: the files and environment as JSON text. */
function insertValues(job: NewJob): InsertValues {
  const { accountId, format, parserContract, idempotencyKey, requestHash, ttlSeconds, totalBytes } = job;
  const environment = job.environment === null ? null : JSON.stringify(job.environment);
  const vulnerabilities = job.vulnerabilities === true;
  return { accountId, format, parserContract, idempotencyKey, requestHash, ttlSeconds, files: JSON.stringify(job.files), environment, vulnerabilities, totalBytes };
}

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

  /** The unexpired jobs among `ids`, by id, whoever owns them (for callers that checked the owner before). */
  async findMany(ids: readonly string[]): Promise<Map<string, JobSnapshot>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.select(snapshotColumns).from(lockfileJobs).where(and(inArray(lockfileJobs.id, [...ids]), notExpired));
    return new Map(rows.map((row) => [row.id, toSnapshot(row)]));
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
      const inputs = row.files === null ? null : { files: row.files, environment: row.environment, vulnerabilities: row.vulnerabilities === true };
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
