import { randomBytes } from 'node:crypto';
import type { Capability } from '../../src/accounts/capabilities.js';
import { createToken, ensureAccount } from '../../src/accounts/tokens.js';
import { loadConfig, type Config } from '../../src/config.js';
import { buildApp, type App, type AppDeps } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { REDIS_URL } from './services.js';

/** A configuration for tests: the test database, a Redis prefix of its own, silent logs. */
export function testConfig(database: { url: string }, env: Record<string, string> = {}): Config {
  return loadConfig({
    DATABASE_URL: database.url,
    REDIS_URL,
    REDIS_PREFIX: `pkgscope-test-${randomBytes(4).toString('hex')}`,
    LOG_LEVEL: 'silent',
    PORT: '0',
    // Revocation must be seen at once in tests.
    AUTH_CACHE_MS: '0',
    // Tests never reach the internet: no advisory sync from OSV's public bucket (tests of the sync serve their own).
    ADVISORY_DB_URL: 'off',
    ...env,
  });
}

export interface TestApp {
  readonly app: App;
  readonly database: TestDatabase;
  readonly config: Config;
  /** Creates an account (or updates it) and returns a fresh token for it. */
  token(account?: string, options?: { capabilities?: readonly Capability[]; termsAccepted?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function startTestApp(
  options: { env?: Record<string, string>; deps?: Partial<Omit<AppDeps, 'config' | 'database'>> } = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = testConfig(database, options.env);
  const app = await buildApp({ config, database, logger: createLogger('silent'), ...options.deps });
  await app.ready();
  return {
    app,
    database,
    config,
    token: async (account = 'tester', opts = {}) => {
      const accountId = await ensureAccount(database.db, account, opts);
      return (await createToken(database.db, accountId)).token;
    },
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
