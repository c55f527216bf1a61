import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts.js';

import type { AnalysisEnvironment } from '../../model/environment.js';
import type { FileProblem, ProgressCounts } from '../../model/types.js';

export interface StoredInputFile {
  readonly path: string;
  readonly content: string;
}

/** One lockfile analysis job: the row is the snapshot's source of truth. */
export const lockfileJobs = pgTable(
  'lockfile_jobs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    format: text('format').notNull(),
    state: text('state').notNull().default('queued'),
    phase: text('phase').notNull().default('queued'),
    attempt: integer('attempt').notNull().default(0),
    revision: integer('revision').notNull().default(0),
    counts: jsonb('counts').$type<ProgressCounts>().notNull().default({}),
    error: text('error'),
    /** With a failure: what was wrong per uploaded file (the result's `diagnostics`). */
    diagnostics: jsonb('diagnostics').$type<FileProblem[]>(),
    /** Version of the parser contract the job was accepted under (major changes invalidate it). */
    parserContract: text('parser_contract').notNull(),
    idempotencyKey: text('idempotency_key'),
    /** SHA-256 of the canonical request (format and files), to tell a replay from a reuse. */
    requestHash: text('request_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('lockfile_jobs_idempotency_idx').on(t.accountId, t.idempotencyKey),
    index('lockfile_jobs_expires_idx').on(t.expiresAt),
    index('lockfile_jobs_active_idx')
      .on(t.updatedAt)
      .where(sql`${t.state} IN ('queued', 'running')`),
    check('lockfile_jobs_state_check', sql`${t.state} IN ('queued', 'running', 'succeeded', 'failed')`),
    check(
      'lockfile_jobs_phase_check',
      sql`${t.phase} IN ('queued', 'resolving', 'enriching', 'rendering', 'succeeded', 'failed')`,
    ),
  ],
);

/** The execution record: what was uploaded, kept until the job expires. */
export const lockfileJobInputs = pgTable('lockfile_job_inputs', {
  jobId: uuid('job_id')
    .primaryKey()
    .references(() => lockfileJobs.id, { onDelete: 'cascade' }),
  files: jsonb('files').$type<StoredInputFile[]>().notNull(),
  totalBytes: integer('total_bytes').notNull(),
  /** The request's target environment; null when it gave none (the documented defaults). */
  environment: jsonb('environment').$type<AnalysisEnvironment>(),
  /** Whether the request asked for its components to be matched against advisories. */
  vulnerabilities: boolean('vulnerabilities').notNull().default(false),
});

export const lockfileJobResults = pgTable('lockfile_job_results', {
  jobId: uuid('job_id')
    .primaryKey()
    .references(() => lockfileJobs.id, { onDelete: 'cascade' }),
  mediaType: text('media_type').notNull(),
  document: text('document').notNull(),
  byteSize: integer('byte_size').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
