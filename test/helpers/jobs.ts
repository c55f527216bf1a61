import { randomBytes } from 'node:crypto';
import type { Config } from '../../src/config.js';
import { createToken, ensureAccount } from '../../src/accounts/tokens.js';
import { buildApp, type App } from '../../src/http/app.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { Analyze } from '../../src/jobs/runner.js';
import { JOBS_PATH, type JobSnapshot } from '../../src/jobs/snapshot.js';
import { apiAppDeps, createApiServices, type ApiServices } from '../../src/processes/routes.js';
import { startWorkers, type RunningWorkers } from '../../src/processes/workers.js';
import { testConfig } from './app.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { SMALL_NPM } from './fixtures.js';
import { startPrivateRedis, type PrivateRedis } from './redis-server.js';
import { anyPackage, startFixtureRegistry, type FixtureRegistry, type FixtureRegistryOptions } from './registry.js';
import { deleteKeysUnder } from './services.js';

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
  if (services.commands.status === 'ready') await deleteKeysUnder(services.commands, prefix);
}

/** Submits the small npm fixture as a job (202 expected). */
export async function submitJob(h: JobsHarness, token: string, format = 'text'): Promise<JobSnapshot> {
  const res = await h.app.inject({ method: 'POST', url: JOBS_PATH, headers: { authorization: `Bearer ${token}` }, payload: { format, files: SMALL_NPM() } });
  if (res.statusCode !== 202) throw new Error(`submit answered ${res.statusCode}: ${res.body}`);
  return res.json<JobSnapshot>();
}

/** The environment of a `pkgscope worker` CLI on the harness's database, Redis prefix and registry. */
export function workerCliEnv(h: JobsHarness, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: h.config.databaseUrl,
    REDIS_URL: h.config.redisUrl,
    REDIS_PREFIX: h.config.redisPrefix,
    JOB_LOCK_MS: '1500',
    // npm's own configuration, read from the environment like any npmrc setting.
    npm_config_registry: `${h.registry.url}/`,
    PROGRESS_INTERVAL_MS: '0',
    ...extra,
  };
}

/** A harness listening for streaming clients, with a token; optionally on a redis-server of its own. */
export interface StreamingHarness {
  readonly h: JobsHarness;
  readonly token: string;
  readonly base: string;
  /** Stops the private Redis and starts an empty one on its port (a restart that lost its data). */
  restartRedis(): Promise<void>;
  stopRedis(): Promise<void>;
  close(): Promise<void>;
}

export async function startStreamingHarness(
  account: string,
  env: Record<string, string> = {},
  options: { privateRedis?: boolean } = {},
): Promise<StreamingHarness> {
  let redis: PrivateRedis | null = options.privateRedis === true ? await startPrivateRedis() : null;
  let h: JobsHarness;
  try {
    h = await startJobsHarness(redis === null ? env : { REDIS_URL: redis.url, ...env });
  } catch (error) {
    await redis?.stop();
    throw error;
  }
  const token = await h.token(account);
  const base = await h.listen();
  const privateRedis = (): PrivateRedis => {
    if (redis === null) throw new Error('this harness has no private Redis');
    return redis;
  };
  return {
    h,
    token,
    base,
    stopRedis: () => privateRedis().stop(),
    restartRedis: async () => {
      const port = Number(new URL(privateRedis().url).port);
      await privateRedis().stop();
      redis = await startPrivateRedis(port);
    },
    close: async () => {
      await h.close();
      await redis?.stop();
    },
  };
}
