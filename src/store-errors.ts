import { DrizzleQueryError } from 'drizzle-orm';

/**
 * Whether a failure means a store (Postgres or Redis) is unreachable or restarting, rather than
 * a bug or a bad request: such failures are retried (jobs) or answered 503 with Retry-After (API).
 */

/** Thrown by domain code that gave up waiting for a store; the API answers it with 503. */
export class StoreUnavailableError extends Error {
  constructor(
    readonly store: 'postgres' | 'redis',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * SQLSTATEs of a lost or refused Postgres session: class 08 (connection exception), 57P01
 * (admin shutdown, also pg_terminate_backend), 57P02 (crash shutdown), 57P03 (cannot connect
 * now: starting or stopping), 53300 (too many connections), plus serialization retries.
 */
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '57P01', '57P02', '57P03', '53300']);
export const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * node-postgres reports a socket that closed under it, and a pool that could not connect in
 * time, with plain Errors that carry no code; their fixed messages are the only signal there is.
 */
const PG_CONNECTION_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/** ioredis names its give-up error; a command on a closed connection has only its message. */
const REDIS_ERROR_NAMES = new Set(['MaxRetriesPerRequestError']);
const REDIS_CONNECTION_MESSAGES = ['Connection is closed.', "Stream isn't writeable and enableOfflineQueue options is false"];

/**
 * `viaQuery`: the error is the cause of a failed query (drizzle wraps driver errors), so a socket
 * code is Postgres's; the same code elsewhere (a registry request) is no store outage.
 */
function oneStoreUnavailable(error: unknown, viaQuery: boolean): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (TRANSIENT_SQLSTATES.has(code) || code.startsWith('08') || (viaQuery && NETWORK_CODES.has(code))) return true;
  }
  if (REDIS_ERROR_NAMES.has(error.name)) return true;
  return PG_CONNECTION_MESSAGES.includes(error.message) || REDIS_CONNECTION_MESSAGES.includes(error.message);
}

/** True for a store outage, also when wrapped (drizzle wraps driver errors in `cause`). */
export function isStoreUnavailable(error: unknown): boolean {
  let viaQuery = false;
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (oneStoreUnavailable(e, viaQuery)) return true;
    viaQuery ||= e instanceof DrizzleQueryError;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
