/** Where the test suite finds Postgres and Redis (the same defaults as the service). */
export const PG_ADMIN_URL = process.env['TEST_PG_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
export const TEMPLATE_DATABASE = 'pkgscope_test_template';
export const TEST_DATABASE_PREFIX = 'pkgscope_test_';

export function databaseUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}
