import { bigint, bigserial, check, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

/**
 * The advisory mirror (src/advisories/store.ts). Each sync or import of an ecosystem writes a new
 * generation beside the current one; one transaction then points the ecosystem's source row at
 * it, so readers (who join through `advisory_sources.generation`) never see a half-imported set.
 * Older generations are deleted afterwards (their rows cascade).
 */

export const ADVISORY_STATES = ['ready', 'syncing', 'failed', 'empty'] as const;
export type AdvisoryState = (typeof ADVISORY_STATES)[number];

/** One generation of one ecosystem's advisories: current (named by its source) or being written. */
export const advisoryGenerations = pgTable('advisory_generations', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  ecosystem: text('ecosystem').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Per OSV ecosystem: what is loaded, and how the last sync or import went. */
export const advisorySources = pgTable(
  'advisory_sources',
  {
    ecosystem: text('ecosystem').primaryKey(),
    state: text('state').$type<AdvisoryState>().notNull(),
    /** Why the last attempt failed (`<code>: <message>`); null unless `failed`. */
    reason: text('reason'),
    /** The current generation; null until a sync or import succeeded. */
    generation: bigint('generation', { mode: 'number' }).references(() => advisoryGenerations.id),
    /** The validators of the archive the current generation came from (conditional GET). */
    etag: text('etag'),
    lastModified: text('last_modified'),
    /** Where the current generation came from: the archive URL, or the imported paths. */
    origin: text('origin'),
    advisories: integer('advisories').notNull().default(0),
    modifiedMax: timestamp('modified_max', { withTimezone: true }),
    syncedAt: timestamp('synced_at', { withTimezone: true }),
    attemptedAt: timestamp('attempted_at', { withTimezone: true }),
  },
  (t) => [check('advisory_sources_state_check', sql`${t.state} in ('ready', 'syncing', 'failed', 'empty')`)],
);

/** The OSV documents of a generation, as compact JSON text (lz4-compressed by Postgres where it can). */
export const advisoryDocuments = pgTable(
  'advisory_documents',
  {
    generation: bigint('generation', { mode: 'number' })
      .notNull()
      .references(() => advisoryGenerations.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    modified: timestamp('modified', { withTimezone: true }).notNull(),
    document: text('document').notNull(),
  },
  (t) => [primaryKey({ columns: [t.generation, t.id] })],
);

/** (generation ⇒ ecosystem, normalised package name) → advisory ids: what a lookup reads. */
export const advisoryPackages = pgTable(
  'advisory_packages',
  {
    generation: bigint('generation', { mode: 'number' })
      .notNull()
      .references(() => advisoryGenerations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    advisoryId: text('advisory_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.generation, t.name, t.advisoryId] })],
);
