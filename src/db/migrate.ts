import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { UnreachableServiceError } from '../unreachable.js';

const HOW_TO_START_POSTGRES =
  'start it with `pg_ctlcluster <version> main start` or `docker compose up -d postgres`, or set DATABASE_URL';

/** Arbitrary but fixed: every pkgscope process serialises migrations on this advisory lock key. */
const MIGRATION_LOCK_KEY = 0x706b_6773; // "pkgs"

/** The repository root, found from this file both in src/ (tsx, tests) and in dist/ (built). */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the migrator');
    dir = parent;
  }
  return dir;
}

export const MIGRATIONS_FOLDER = join(projectRoot(), 'migrations');

async function connectClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // Errors after connect surface on the next query; an unhandled 'error' event would crash.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  return client;
}

/** A connect failure the server did not answer with a SQLSTATE: refused, unresolvable, timed out. */
function isUnreachable(error: unknown): boolean {
  return !(error instanceof pg.DatabaseError);
}

/** Creates the database named in `url` when it does not exist (two processes may race: both succeed). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (name === '') return;
  let client: pg.Client;
  try {
    client = await connectClient(url);
    await client.end();
    return;
  } catch (error) {
    if (isUnreachable(error)) throw new UnreachableServiceError('Postgres', url, error, HOW_TO_START_POSTGRES);
    if ((error as { code?: unknown }).code !== '3D000') throw error; // 3D000: invalid_catalog_name
  }
  const admin = new URL(url);
  admin.pathname = '/postgres';
  client = await connectClient(admin.toString());
  try {
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // 42P04 duplicate_database; 23505 when two CREATE DATABASE commands race on pg_database.
    if (code !== '42P04' && code !== '23505') throw error;
  } finally {
    await client.end();
  }
}

export interface MigrationResult {
  readonly applied: number;
}

/** Applies pending migrations while holding a session advisory lock, so concurrent start-ups serialise. */
export async function runMigrations(url: string, folder = MIGRATIONS_FOLDER): Promise<MigrationResult> {
  await ensureDatabase(url);
  let client: pg.Client;
  try {
    client = await connectClient(url);
  } catch (error) {
    if (isUnreachable(error)) throw new UnreachableServiceError('Postgres', url, error, HOW_TO_START_POSTGRES);
    throw error;
  }
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const before = await appliedCount(client);
      await migrate(drizzle(client), { migrationsFolder: folder });
      return { applied: (await appliedCount(client)) - before };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}

async function appliedCount(client: pg.Client | pg.Pool): Promise<number> {
  const exists = await client.query<{ present: boolean }>(
    `SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present`,
  );
  if (exists.rows[0]?.present !== true) return 0;
  const result = await client.query<{ n: string }>('SELECT count(*) AS n FROM drizzle.__drizzle_migrations');
  return Number(result.rows[0]?.n ?? 0);
}

interface Journal {
  readonly entries: readonly unknown[];
}

/** Whether every migration shipped with this build has been applied (for readiness). */
export async function migrationsCurrent(pool: pg.Pool, folder = MIGRATIONS_FOLDER): Promise<boolean> {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as Journal;
  return (await appliedCount(pool)) >= journal.entries.length;
}
