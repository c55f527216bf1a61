import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Deployment-wide values that every process must agree on (e.g. a generated cursor secret). */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
