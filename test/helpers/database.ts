import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connectDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { databaseUrl, PG_ADMIN_URL, TEMPLATE_DATABASE, TEST_DATABASE_PREFIX } from './services.js';

export interface TestDatabase extends DatabaseHandle {
  readonly name: string;
  readonly url: string;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export function uniqueName(prefix = TEST_DATABASE_PREFIX): string {
  return `${prefix}${randomBytes(6).toString('hex')}`;
}

/** A fresh copy of the migrated template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = uniqueName();
  await admin((c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(TEMPLATE_DATABASE)}`));
  const url = databaseUrl(name);
  const handle = connectDatabase(url, { max: 5, applicationName: 'pkgscope-test' });
  return {
    ...handle,
    name,
    url,
    drop: async () => {
      await handle.close();
      await dropDatabase(name);
    },
  };
}

export async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`));
}
