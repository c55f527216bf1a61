import { defineConfig } from 'drizzle-kit';

// Generates SQL migrations from the schema: `npm run db:generate`. The files in migrations/
// (SQL and meta) are committed and applied at start-up by src/db/migrate.ts.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema/index.ts',
  out: './migrations',
});
