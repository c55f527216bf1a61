import { fillPlaceholders, sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { QueryResultRow } from 'pg';
import type { Database } from '../db/client.js';
import { lockfileJobInputs, lockfileJobResults, lockfileJobs, type StoredInputFile } from '../db/schema/index.js';
import type { AnalysisEnvironment } from '../model/environment.js';
import { toSnapshot, type JobSnapshot } from './snapshot.js';

// The job statements every job runs (create, claim, finish), as raw SQL built once and run by
// name; the store (store.ts) runs them beside its query-builder statements.

export const snapshotColumns = {
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
export type SnapshotRow = Omit<{ [K in keyof typeof snapshotColumns]: (typeof snapshotColumns)[K]['_']['data'] }, 'expiresAt'> & { readonly expiresAt: string | Date };

/** A column's bare name, as the SET list of an UPDATE and the column list of an INSERT take it. */
const name = (column: { readonly name: string }) => sql.identifier(column.name);

/** `snapshotColumns` under their keys, for the RETURNING of a raw statement (built once). */
const SNAPSHOT_RETURNING = sql.join(
  Object.entries(snapshotColumns).map(([key, column]) => sql`${name(column)} AS ${sql.identifier(key)}`),
  sql`, `,
);

/** The snapshot of a raw statement's row: the driver leaves its timestamp as text (or a Date). */
export const rawSnapshot = (row: SnapshotRow): JobSnapshot => toSnapshot({ ...row, expiresAt: new Date(row.expiresAt) });

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

function namedStatement(statementName: string, query: SQL): NamedStatement {
  const { sql: text, params } = new PgDialect().sqlToQuery(query);
  return { name: statementName, text, params };
}

export async function runNamed<Row extends QueryResultRow>(db: Database, statement: NamedStatement, values: Record<string, unknown>): Promise<Row[]> {
  const { rows } = await db.$client.query<Row>({ name: statement.name, text: statement.text, values: fillPlaceholders([...statement.params], values) });
  return rows;
}

/** The claim of a queued job with its execution record, in one statement (a round trip fewer per job than the claim and then the read of the inputs). */
export const CLAIM_WITH_INPUTS = (() => {
  const j = lockfileJobs;
  const i = lockfileJobInputs;
  return namedStatement('job_claim_with_inputs', sql`
    WITH claimed AS (
      UPDATE ${j} SET ${name(j.revision)} = ${j.revision} + 1, ${name(j.updatedAt)} = now(), ${name(j.attempt)} = ${j.attempt} + 1,
        ${name(j.state)} = 'running', ${name(j.phase)} = 'resolving', ${name(j.startedAt)} = coalesce(${j.startedAt}, now())
      WHERE ${j.id} = ${sql.placeholder('id')} AND ${j.expiresAt} > now() AND ${j.state} = 'queued' AND ${j.attempt} < ${sql.placeholder('maxAttempts')}
      RETURNING ${SNAPSHOT_RETURNING}, ${name(j.parserContract)} AS "parserContract"
    )
    SELECT claimed.*, ${i}.${name(i.files)} AS "files", ${i}.${name(i.environment)} AS "environment", ${i}.${name(i.vulnerabilities)} AS "vulnerabilities"
    FROM claimed LEFT JOIN ${i} ON ${i}.${name(i.jobId)} = claimed."id"`);
})();

/** What the insert of a job takes: the job's columns, the files and environment as JSON text. */
export const INSERT_VALUES = ['accountId', 'format', 'parserContract', 'idempotencyKey', 'requestHash', 'ttlSeconds', 'files', 'environment', 'vulnerabilities', 'totalBytes'] as const;
export type InsertValues = Readonly<Record<(typeof INSERT_VALUES)[number], unknown>>;

/** The job and its execution record in one statement, over values (in a transaction) or placeholders (the named statement). */
export function insertJob(v: InsertValues): SQL {
  const j = lockfileJobs;
  const i = lockfileJobInputs;
  return sql`
    WITH job AS (
      INSERT INTO ${j} (${name(j.accountId)}, ${name(j.format)}, ${name(j.parserContract)}, ${name(j.idempotencyKey)}, ${name(j.requestHash)}, ${name(j.expiresAt)})
      VALUES (${v.accountId}, ${v.format}, ${v.parserContract}, ${v.idempotencyKey}, ${v.requestHash}, now() + make_interval(secs => ${v.ttlSeconds}))
      RETURNING ${SNAPSHOT_RETURNING}
    ), inputs AS (
      INSERT INTO ${i} (${name(i.jobId)}, ${name(i.files)}, ${name(i.environment)}, ${name(i.vulnerabilities)}, ${name(i.totalBytes)})
      SELECT "id", ${v.files}::jsonb, ${v.environment}::jsonb, ${v.vulnerabilities}::boolean, ${v.totalBytes} FROM job
    )
    SELECT * FROM job`;
}

export const INSERT_JOB = namedStatement('job_insert', insertJob(Object.fromEntries(INSERT_VALUES.map((key) => [key, sql.placeholder(key)])) as InsertValues));

/**
 * The result and the terminal snapshot together, or neither when fenced out: one statement (the
 * update and the insert as data-modifying CTEs) where a transaction took four round trips.
 */
export const SUCCEED = (() => {
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

export type ClaimRow = SnapshotRow & {
  readonly parserContract: string;
  /** Null when the execution record is gone (the column itself is never null). */
  readonly files: StoredInputFile[] | null;
  readonly environment: AnalysisEnvironment | null;
  readonly vulnerabilities: boolean | null;
};
