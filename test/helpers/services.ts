import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { fileURLToPath } from 'node:url';

/** Where the test suite finds Postgres and Redis (the same defaults as the service). */
export const PG_ADMIN_URL = process.env['TEST_PG_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

// Databases are named after the checkout and the run (the pid of the process that started the
// run, which its test workers inherit in the environment), so two runs on one machine, of one
// checkout or two, go on at once: a run drops only leftovers of runs that are no longer alive.
const checkout = createHash('sha256').update(fileURLToPath(new URL('../..', import.meta.url))).digest('hex').slice(0, 8);
const run = (process.env['PKGSCOPE_TEST_RUN'] ??= String(process.pid));
export const TEMPLATE_DATABASE = `pkgscope_test_template_${checkout}_${run}`;
export const TEST_DATABASE_PREFIX = `pkgscope_test_${checkout}_${run}_`;

/** The run a test database of this checkout belongs to (the pid in its name), or null for another checkout's. */
export function runOfDatabase(name: string): number | null {
  const match = new RegExp(`^pkgscope_test_(?:template_)?${checkout}_(\\d+)(?:_|$)`).exec(name);
  return match?.[1] === undefined ? null : Number(match[1]);
}

export function databaseUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Deletes every key under `prefix:` (a test's or a benchmark's Redis prefix). */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

/** Deletes every key under `prefix:` on the shared Redis, through a connection of its own (a test's leftovers after its processes stopped). */
export async function deleteKeysOnSharedRedis(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await deleteKeysUnder(redis, prefix);
  } finally {
    redis.disconnect();
  }
}
