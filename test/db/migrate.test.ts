import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureDatabase, MIGRATIONS_FOLDER, migrationsCurrent, runMigrations } from '../../src/db/migrate.js';
import { UnreachableServiceError } from '../../src/unreachable.js';
import { dropDatabase, uniqueName } from '../helpers/database.js';
import { databaseUrl, PG_ADMIN_URL } from '../helpers/services.js';

const created: string[] = [];
afterAll(async () => {
  for (const name of created) await dropDatabase(name);
});

function journalLength(): number {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
  return journal.entries.length;
}

describe('migrations', () => {
  it('creates a missing database; concurrent creations both succeed', async () => {
    const name = uniqueName();
    created.push(name);
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      const named = async (): Promise<number> => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0;
      expect(await named()).toBe(0);
      await Promise.all([ensureDatabase(databaseUrl(name)), ensureDatabase(databaseUrl(name))]);
      expect(await named()).toBe(1);
      // And once it exists, ensuring it again leaves it as it is.
      await ensureDatabase(databaseUrl(name));
      expect(await named()).toBe(1);
    } finally {
      await admin.end();
    }
    const client = new pg.Client({ connectionString: databaseUrl(name) });
    await client.connect();
    try {
      expect((await client.query<{ name: string }>('SELECT current_database() AS name')).rows[0]?.name).toBe(name);
    } finally {
      await client.end();
    }
  });

  it('two concurrent runs both succeed and apply each migration once', async () => {
    const name = uniqueName();
    created.push(name);
    const url = databaseUrl(name);
    const results = await Promise.all([runMigrations(url), runMigrations(url), runMigrations(url)]);
    expect(results.map((r) => r.applied).sort()).toEqual([0, 0, journalLength()]);

    const pool = new pg.Pool({ connectionString: url });
    try {
      const rows = await pool.query<{ hash: string }>('SELECT hash FROM drizzle.__drizzle_migrations');
      expect(rows.rowCount).toBe(journalLength());
      expect(new Set(rows.rows.map((r) => r.hash)).size).toBe(journalLength());
      expect(await migrationsCurrent(pool)).toBe(true);
      const tables = await pool.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public'`);
      expect(tables.rows.map((r) => r.t)).toEqual(expect.arrayContaining(['accounts', 'api_tokens', 'sessions', 'settings']));
      // This server has lz4 (Debian builds it in): the large texts use it.
      const compression = await pool.query<{ c: string; m: string }>(
        `SELECT attrelid::regclass || '.' || attname AS c, attcompression AS m FROM pg_attribute
         WHERE (attrelid, attname) IN (('lockfile_job_results'::regclass, 'document'), ('lockfile_job_inputs'::regclass, 'files'), ('blob_texts'::regclass, 'content'))`,
      );
      expect(compression.rows.map((r) => r.m)).toEqual(['l', 'l', 'l']);
    } finally {
      await pool.end();
    }
    expect((await runMigrations(url)).applied).toBe(0);
  });

  it('reports an unreachable server as UnreachableServiceError naming the URL', async () => {
    const error = await runMigrations('postgres://postgres:secret@127.0.0.1:1/none').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreachableServiceError);
    expect((error as Error).message).toMatch(/^cannot reach Postgres at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none \(ECONNREFUSED\); start it/);
    expect((error as Error).message).not.toContain('secret');
  });
});
