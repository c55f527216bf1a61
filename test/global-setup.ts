import pg from 'pg';
import { runMigrations } from '../src/db/migrate.js';
import { ensureBuilt } from './helpers/build.js';
import { databaseUrl, PG_ADMIN_URL, runOfDatabase, TEMPLATE_DATABASE } from './helpers/services.js';

/** Whether a process with this pid is running (a run that is still using its databases). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Builds one migrated template database per run; each test file copies it (CREATE DATABASE …
 * TEMPLATE), so files run in parallel on databases of their own. Leftovers of killed runs go first.
 */
export default async function setup(): Promise<() => Promise<void>> {
  // The processes tests start run the built CLI (see helpers/build.ts).
  ensureBuilt();
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    const ours = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'pkgscope_test_%'`);
    const stale = ours.rows.filter(({ datname }) => {
      const run = runOfDatabase(datname);
      return run !== null && (run === process.pid || !alive(run));
    });
    for (const { datname } of stale) {
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
