import { randomBytes } from 'node:crypto';
import type { Config } from '../../src/config.js';
import { createToken, ensureAccount } from '../../src/accounts/tokens.js';
import { buildApp, type App } from '../../src/http/app.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { Analyze } from '../../src/jobs/runner.js';
import { apiAppDeps, createApiServices, type ApiServices } from '../../src/processes/routes.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';
import { testConfig } from './app.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { anyPackage, startFixtureRegistry, type FixtureRegistry, type FixtureRegistryOptions } from './registry.js';

/** Fast timings for job tests; individual tests override what they exercise. */
export const FAST_JOB_ENV: Record<string, string> = {
  JOB_LOCK_MS: '2000',
  RECONCILE_INTERVAL_MS: '500',
  RECONCILE_GRACE_MS: '500',
  EXPIRY_INTERVAL_MS: '500',
  SSE_HEARTBEAT_MS: '15000',
  PROGRESS_INTERVAL_MS: '50',
  SHUTDOWN_GRACE_MS: '2000',
  WORKER_CONCURRENCY: '4',
};

export interface JobsHarness {
  readonly app: App;
  readonly config: Config;
  readonly database: TestDatabase;
  readonly services: ApiServices;
  readonly logger: Logger;
  /** The fixture registry the harness's analyses use (any coordinate answers as MIT). */
  readonly registry: FixtureRegistry;
  token(account?: string): Promise<string>;
  /** Starts in-process workers on the same database and Redis prefix. */
  startWorkers(overrides?: Partial<Config>, analyze?: Analyze): Promise<RunningWorkers>;
  /** Listens on a random local port (for streaming clients) and returns the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export async function startJobsHarness(
  env: Record<string, string> = {},
  registryOptions: FixtureRegistryOptions = {},
): Promise<JobsHarness> {
  const database = await createTestDatabase();
  const config = testConfig(database, {
    ...FAST_JOB_ENV,
    REDIS_PREFIX: `pkgscope-test-${randomBytes(4).toString('hex')}`,
    ...env,
  });
  const logger = createLogger('silent');
  const registry = await startFixtureRegistry({ fallback: anyPackage, ...registryOptions });
  const npmOptions = await registry.npmOptions();
  const services = await createApiServices(config, database, logger, npmOptions);
  const app = await buildApp(apiAppDeps(config, database, services, logger));
  await app.ready();
  const workers: RunningWorkers[] = [];
  return {
    app,
    config,
    database,
    services,
    logger,
    registry,
    token: async (account = 'jobs') => {
      const id = await ensureAccount(database.db, account);
      return (await createToken(database.db, id)).token;
    },
    startWorkers: async (overrides = {}, analyze?: Analyze) => {
      const running = await startWorkers({
        config: { ...config, ...overrides },
        database,
        logger,
        npmOptions,
        ...(analyze ? { analyze } : {}),
      });
      workers.push(running);
      return running;
    },
    listen: async () => {
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      return address;
    },
    close: async () => {
      for (const w of workers) await w.close();
      await app.close();
      await deleteRedisKeys(services, config.redisPrefix).catch(() => undefined);
      await services.close();
      await registry.close();
      await database.drop();
    },
  };
}

async function deleteRedisKeys(services: ApiServices, prefix: string): Promise<void> {
  const redis = services.commands;
  if (redis.status !== 'ready') return;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
