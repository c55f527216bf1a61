import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema/index.js';

export type Database = NodePgDatabase<typeof schema>;
/** A transaction handle, usable wherever a query runs inside `db.transaction`. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
export type Queryable = Database | Transaction;

export interface DatabaseHandle {
  readonly pool: pg.Pool;
  readonly db: Database;
  close(): Promise<void>;
}

export interface PoolOptions {
  readonly max?: number;
  readonly applicationName?: string;
}

export function connectDatabase(url: string, options: PoolOptions = {}): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'pkgscope',
    connectionTimeoutMillis: 10_000,
  });
  // An idle client that loses its connection emits on the pool; without a listener the process dies.
  pool.on('error', () => undefined);
  const db = drizzle(pool, { schema });
  let closed: Promise<void> | undefined;
  return {
    pool,
    db,
    close: () => (closed ??= pool.end()),
  };
}

export { schema };
