import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { OutageLog } from '../outage-log.js';
import { StoreUnavailableError } from '../store-errors.js';
import * as schema from './schema/index.js';

/** drizzle over the pool; `$client` is the pool itself, for the few statements drizzle cannot build. */
export type Database = NodePgDatabase<typeof schema> & { readonly $client: pg.Pool };
/** A transaction handle, usable wherever a query runs inside `db.transaction`. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
export type Queryable = Database | Transaction;

export interface DatabaseHandle {
  readonly pool: pg.Pool;
  readonly db: Database;
  /**
   * Calls `listener` whenever a session of the pool is lost (Postgres restarted, or terminated
   * the session): readiness re-checks migrations on the next connection.
   */
  readonly onConnectionLost: (listener: () => void) => void;
  close(): Promise<void>;
}

export interface PoolOptions {
  readonly max?: number;
  readonly applicationName?: string;
  /** Where connection losses are reported (one warning per interval); silent without. */
  readonly logger?: Logger;
}

type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * A pool whose failures to get a connection (Postgres down, restarting, refusing) are
 * StoreUnavailableErrors: queries already carry that in their error chain, but a transaction
 * gets its client straight from `connect`, where a refused socket looks like any other.
 */
class Pool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    const unavailable = (error: Error): StoreUnavailableError =>
      new StoreUnavailableError('postgres', `could not connect to Postgres: ${error.message}`, { cause: error });
    if (callback === undefined) {
      return super.connect().catch((error: unknown) => {
        throw unavailable(error instanceof Error ? error : new Error(String(error)));
      });
    }
    super.connect((err, client, done) => callback(err ? unavailable(err) : undefined, client, done));
    return undefined;
  }
}

export function connectDatabase(url: string, options: PoolOptions = {}): DatabaseHandle {
  const pool = new Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'pkgscope',
    connectionTimeoutMillis: 10_000,
  });
  const outages = options.logger ? new OutageLog(options.logger.child({ store: 'postgres' })) : null;
  const listeners: (() => void)[] = [];
  const lost = (error: unknown): void => {
    outages?.warn(options.applicationName ?? 'pkgscope', error, 'postgres session lost');
    for (const listener of listeners) listener();
  };
  // A client emits 'error' when its session dies (57P01 on a restart or pg_terminate_backend,
  // a reset socket). The pool listens only while a client is idle; a checked-out client (a
  // transaction, a long query) would crash the process. Every client gets a listener for life:
  // the query in flight fails on its own, and the pool discards the broken client on release.
  pool.on('connect', (client) => {
    client.on('error', lost);
  });
  pool.on('error', lost);
  const db = drizzle(pool, { schema });
  let closed: Promise<void> | undefined;
  return {
    pool,
    db,
    onConnectionLost: (listener) => listeners.push(listener),
    close: () => (closed ??= pool.end()),
  };
}

export { schema };
