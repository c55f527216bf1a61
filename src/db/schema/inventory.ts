import { sql } from 'drizzle-orm';
import { bigint, check, customType, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/** File contents, content-addressed (`sha256:<hex>` of the raw bytes) and compressed; shared across versions. */
export const blobs = pgTable('blobs', {
  hash: text('hash').primaryKey(),
  byteSize: bigint('byte_size', { mode: 'number' }).notNull(),
  /** `gzip` or `identity` (stored as is when compression does not help). */
  encoding: text('encoding').notNull(),
  data: bytea('data').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The text of text blobs (UTF-8 without NUL, at most GREP_INDEX_MAX_BYTES), under a pg_trgm GIN
 * index: grep asks it which files can contain a pattern before scanning any.
 */
export const blobTexts = pgTable(
  'blob_texts',
  {
    hash: text('hash')
      .primaryKey()
      .references(() => blobs.hash, { onDelete: 'cascade' }),
    content: text('content').notNull(),
  },
  (t) => [index('blob_texts_trgm_idx').using('gin', sql`${t.content} gin_trgm_ops`)],
);

export interface InventoryFacts {
  /** Repository URL the registry records for the package version. */
  readonly repoUrl?: string | null;
  /** The registry's gitHead for the version. */
  readonly gitHead?: string | null;
  readonly tarball?: string | null;
  readonly integrity?: string | null;
  readonly unpackedSize?: number | null;
  readonly fileCount?: number | null;
  readonly skipped?: readonly string[];
  /** Repository: the clone URL and the commit of this snapshot. */
  readonly commit?: string | null;
  /** Repository key (`github:owner/repo`) and the ref that asked for this commit. */
  readonly repository?: string | null;
  readonly ref?: string | null;
  /** Site crawl: where it stands and how much it covers. */
  readonly crawlStatus?: 'idle' | 'running' | 'complete' | 'failed';
  readonly coverage?: 'none' | 'partial' | 'capped' | 'complete';
  readonly coverageReason?: string | null;
  /** Site: http or https, as the host answered. */
  readonly scheme?: 'http' | 'https';
  /** Site: pages the last crawl stored, and how it ended. */
  readonly pagesSeen?: number;
  /** The attempt counter when the inventory was last retried or refreshed: attempts are budgeted from it. */
  readonly attemptsBefore?: number;
}

/** One prepared (or being prepared) snapshot: a package version, a repository commit or a site. */
export const inventories = pgTable(
  'inventories',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind').notNull(),
    /** Resolved identity, unique: `npm:react@18.3.1`, `github:owner/repo@<sha>`, `site:host/scope`. */
    identity: text('identity').notNull(),
    registry: text('registry'),
    packageName: text('package_name'),
    version: text('version'),
    state: text('state').notNull().default('pending'),
    failure: text('failure'),
    attempt: integer('attempt').notNull().default(0),
    fileCount: integer('file_count'),
    totalBytes: bigint('total_bytes', { mode: 'number' }),
    facts: jsonb('facts').$type<InventoryFacts>().notNull().default({}),
    preparationMs: integer('preparation_ms'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('inventories_identity_idx').on(t.identity),
    index('inventories_package_idx').on(t.registry, t.packageName),
    index('inventories_unfinished_idx')
      .on(t.updatedAt)
      .where(sql`${t.state} IN ('pending', 'preparing')`),
    check('inventories_state_check', sql`${t.state} IN ('pending', 'preparing', 'ready', 'failed', 'unavailable')`),
  ],
);

/** Files and directories of an inventory; paths sort byte-wise (COLLATE "C" in the migration). */
export const inventoryEntries = pgTable(
  'inventory_entries',
  {
    inventoryId: uuid('inventory_id')
      .notNull()
      .references(() => inventories.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    kind: text('kind').notNull(),
    byteSize: bigint('byte_size', { mode: 'number' }),
    lineCount: integer('line_count'),
    contentHash: text('content_hash'),
    language: text('language'),
    fileType: text('file_type'),
    intent: text('intent'),
    title: text('title'),
  },
  (t) => [primaryKey({ columns: [t.inventoryId, t.path] })],
);

/** Which commit a repository ref was last indexed at: serves a moved branch as stale meanwhile. */
export const inventoryRefs = pgTable(
  'inventory_refs',
  {
    repository: text('repository').notNull(),
    ref: text('ref').notNull(),
    inventoryId: uuid('inventory_id')
      .notNull()
      .references(() => inventories.id, { onDelete: 'cascade' }),
    commit: text('commit').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.repository, t.ref] })],
);
