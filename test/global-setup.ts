import pg from 'pg';
import { runMigrations } from '../src/db/migrate.js';
import { databaseUrl, PG_ADMIN_URL, TEMPLATE_DATABASE, TEST_DATABASE_PREFIX } from './helpers/services.js';

/**
 * Builds one migrated template database per run; each test file copies it (CREATE DATABASE …
 * TEMPLATE), so files run in parallel on databases of their own. Leftovers of killed runs go first.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    const stale = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`,
      [`${TEST_DATABASE_PREFIX}%`, TEMPLATE_DATABASE],
    );
    for (const { datname } of stale.rows) {
      await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
    }
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(TEMPLATE_DATABASE)}`);
  } finally {
    await admin.end();
  }
  await runMigrations(databaseUrl(TEMPLATE_DATABASE));
  return async () => {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(TEMPLATE_DATABASE)} WITH (FORCE)`);
    await client.end();
  };
}
