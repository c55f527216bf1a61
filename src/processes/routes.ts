import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import type { RoutePlugin } from '../http/app.js';
import { EventHub } from '../jobs/events.js';
import { createQueue, type SbomJobData, type SbomQueue } from '../jobs/queues.js';
import { JobStore } from '../jobs/store.js';
import type { Logger } from '../logger.js';
import { closeRedis, createRedis } from '../redis.js';
import { registryAnalysis, type RegistryAnalysis } from '../registry/analysis.js';
import type { NpmOptions } from '../registry/npm-options.js';
import { PgMetadataCache } from '../registry/pg-cache.js';
import { healthRoutes } from '../routes/health.js';
import { lockfileJobRoutes } from '../routes/lockfile-jobs.js';
import { sbomRoutes } from '../routes/sbom.js';
import { analyze } from '../sbom/analyze.js';

/** The collaborators of an API process, made once and shared by its routes. */
export interface ApiServices {
  /** Registry enrichment and resolution for the synchronous SBOM endpoint. */
  readonly analysis: RegistryAnalysis;
  readonly commands: Redis;
  readonly subscriber: Redis;
  readonly sbomQueue: SbomQueue;
  readonly hub: EventHub;
  readonly store: JobStore;
  close(): Promise<void>;
}

export async function createApiServices(
  config: Config,
  database: DatabaseHandle,
  logger: Logger,
  npmOptions?: NpmOptions,
): Promise<ApiServices> {
  const analysis = await registryAnalysis({
    cache: new PgMetadataCache(database.db),
    resolutionTimeoutMs: config.resolutionTimeoutMs,
    concurrency: config.registryConcurrency,
    ...(npmOptions ? { npmOptions } : {}),
  });
  const commands = createRedis(config.redisUrl, 'commands', 'pkgscope-api-commands');
  const subscriber = createRedis(config.redisUrl, 'subscriber', 'pkgscope-api-events');
  const sbomQueue = createQueue<SbomJobData>('sbom', commands, config.redisPrefix);
  const hub = new EventHub(subscriber, config.redisPrefix, logger);
  return {
    analysis,
    commands,
    subscriber,
    sbomQueue,
    hub,
    store: new JobStore(database.db),
    close: async () => {
      hub.closeAll();
      await sbomQueue.close();
      await Promise.all([closeRedis(commands), closeRedis(subscriber)]);
    },
  };
}

export interface RouteSet {
  readonly v1Routes: readonly RoutePlugin[];
  readonly publicRoutes: readonly RoutePlugin[];
}

/** Every route module of the API, wired with its collaborators. */
export function apiRoutes(config: Config, database: DatabaseHandle, services: ApiServices, logger: Logger): RouteSet {
  const analysis = { maxOutputBytes: config.sbomMaxOutputBytes, ...services.analysis };
  return {
    publicRoutes: [healthRoutes({ pool: database.pool, pingRedis: () => services.commands.ping() })],
    v1Routes: [
      lockfileJobRoutes({ config, store: services.store, queue: services.sbomQueue, hub: services.hub, logger }),
      sbomRoutes({ config, analyze, analysis }),
    ],
  };
}
