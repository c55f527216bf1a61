import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const accounts = pgTable('accounts', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  capabilities: text('capabilities').array().notNull().default(sql`'{}'::text[]`),
  termsAcceptedAt: timestamp('terms_accepted_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const apiTokens = pgTable(
  'api_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** Hex SHA-256 of the whole token; the token itself is never stored. */
    tokenHash: text('token_hash').notNull().unique(),
    /** The first characters of the token, shown by `tokens list` to tell tokens apart. */
    displayPrefix: text('display_prefix').notNull(),
    label: text('label'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [index('api_tokens_account_idx').on(t.accountId)],
);

export const sessions = pgTable(
  'sessions',
  {
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    sessionId: text('session_id').notNull(),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    requestCount: bigint('request_count', { mode: 'number' }).notNull().default(1),
    clientName: text('client_name'),
    clientVersion: text('client_version'),
    agent: text('agent'),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.sessionId] })],
);
