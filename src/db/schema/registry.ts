import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { PackageMetadata } from '../../model/metadata.js';

/** Registry metadata per package version (`name@version`), shared by every analysis. */
export const packageMetadata = pgTable(
  'package_metadata',
  {
    coordinate: text('coordinate').primaryKey(),
    metadata: jsonb('metadata').$type<PackageMetadata>().notNull(),
    fetchedAt: timestamp('fetched_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('package_metadata_fetched_idx').on(t.fetchedAt)],
);
