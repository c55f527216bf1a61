import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { fileURLToPath } from 'node:url';

/** Where the test suite finds Postgres and Redis (the same defaults as the service). */
export const PG_ADMIN_URL = process.env['TEST_PG_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

// Databases are named after the checkout, so two checkouts on one machine can run their suites at
// once: a run drops only its own checkout's leftovers, never another's live databases.
const checkout = createHash('sha256').update(fileURLToPath(new URL('../..', import.meta.url))).digest('hex').slice(0, 8);
export const TEMPLATE_DATABASE = `pkgscope_test_template_${checkout}`;
export const TEST_DATABASE_PREFIX = `pkgscope_test_${checkout}_`;

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
