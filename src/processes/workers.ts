import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { DEFAULT_TAR_LIMITS } from '../archives/tar-reader.js';
import { CRAWLER_AGENT } from '../inventory/crawl/crawl.js';
import { GitSource } from '../inventory/sources/git.js';
import { addressPolicy, HostLimiter, SiteFetcher } from '../inventory/sources/site-fetch.js';
import { InventoryStore } from '../inventory/store/store.js';
import { inventoryChannel } from '../inventory/prepare/waiter.js';
import { publishEvent, snapshotPublisher } from '../jobs/events.js';
import type { QueueHandler } from '../jobs/handler.js';
import { checkHandlers, hostQueueHandlers } from '../jobs/host.js';
import { createQueues } from '../jobs/queues.js';
import type { Analyze } from '../jobs/runner.js';
import { JobStore } from '../jobs/store.js';
import type { Logger } from '../logger.js';
import { OutageLog } from '../outage-log.js';
import { closeRedis, createRedis } from '../redis.js';
import { loadNpmOptions, type NpmOptions } from '../ecosystems/npm/options.js';
import { PARSER_CONTRACT_VERSION } from '../sbom/contract.js';
import { Metrics } from '../ops/metrics.js';
import { createPagePool, PageTooHeavy } from '../threads/page-pool.js';
import { SERVICE_VERSION } from '../version.js';
import { crawlHandler } from './handlers/crawl.js';
import { inventoryHandler } from './handlers/inventory.js';
import { maintenanceHandler } from './handlers/maintenance.js';
import { sbomHandler } from './handlers/sbom.js';
import { analysisPoolFor, packageTargetsFor, registryAnalysisFor } from './wiring.js';
import { pgAdvisoryLookup } from '../advisories/pg-lookup.js';

/** The worker process's root: every queue's handler wired with its collaborators, hosted by jobs/host.ts. */

export interface WorkerDeps {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly logger: Logger;
  /** The analysis entry point; replaceable to script failures in tests. */
  readonly analyze?: Analyze;
  /** npm options instead of the user's npm configuration (tests use a fixture registry). */
  readonly npmOptions?: NpmOptions;
}

export interface RunningWorkers {
  readonly queues: readonly string[];
  /** This process's metrics (job phases and outcomes, registry requests, queues). */
  readonly metrics: Metrics;
  /** Stops taking jobs, lets running ones finish within the grace period, then hands them back. */
  close(): Promise<void>;
}

/** Starts one BullMQ worker per queue, each wired by its entry point in handlers/. */
export async function startWorkers(deps: WorkerDeps): Promise<RunningWorkers> {
  const { config, database, logger } = deps;
  const outages = new OutageLog(logger);
  const commands = createRedis(config.redisUrl, 'commands', 'pkgscope-worker-commands', logger);
  const store = new JobStore(database.db);
  const queues = createQueues(commands, config.redisPrefix, outages);
  const inventories = new InventoryStore(database.db);
  const metrics = new Metrics('worker');
  metrics.watchQueues(queues.all);
  const notify = (id: string): Promise<void> => publishEvent(commands, inventoryChannel(config.redisPrefix, id), 'changed', logger);
  const npmOptions = deps.npmOptions ?? (await loadNpmOptions());
  const targets = packageTargetsFor(config, npmOptions);
  const fetcher = new SiteFetcher({
    allowAddress: addressPolicy(config.siteAllowPrivateAddresses),
    timeoutMs: config.crawl.fetchTimeoutMs,
    maxBytes: config.crawl.maxPageBytes,
    maxRedirects: 10,
    userAgent: `${CRAWLER_AGENT}/${SERVICE_VERSION} (documentation inventory)`,
  });
  const { registry, resolver, ecosystems, registryAccess } = await registryAnalysisFor(config, database, npmOptions, metrics);
  // Analysis runs on threads, so this event loop stays free to renew queue locks meanwhile.
  const pool = analysisPoolFor(config, logger);
  // One page thread: pages convert in the order they arrive, as they did on the event loop.
  const pages = createPagePool({ threads: 1, budgetMs: config.crawl.pageTimeLimitMs, maxHeapMb: config.analysis.maxHeapMb });
  const handlers: QueueHandler[] = [
    sbomHandler(
      {
        store,
        publish: snapshotPublisher(commands, config.redisPrefix, logger),
        logger,
        analyze: deps.analyze ?? pool.analyze,
        analysis: { maxOutputBytes: config.sbomMaxOutputBytes, registry, resolver, ecosystems, registryAccess },
        advisories: pgAdvisoryLookup(database.db),
        maxAttempts: config.jobMaxAttempts,
        parserContract: PARSER_CONTRACT_VERSION,
        progressIntervalMs: config.progressIntervalMs,
        crashBackoffMs: config.jobCrashBackoffMs,
        observer: metrics,
      },
      logger,
    ),
    inventoryHandler(
      {
        package: {
          store: inventories,
          sources: targets.sources,
          limits: {
            ...DEFAULT_TAR_LIMITS,
            maxFileBytes: config.inventoryMaxFileBytes,
            maxTotalBytes: config.inventoryMaxTotalBytes,
            maxPathBytes: config.inventoryMaxPathBytes,
            maxPathDepth: config.inventoryMaxPathDepth,
            maxDirectories: config.inventoryMaxDirectories,
          },
          logger,
          notify,
          maxAttempts: config.jobMaxAttempts,
        },
        repository: {
          store: inventories,
          git: new GitSource({ hosts: config.gitHosts, cacheDir: config.gitCacheDir, timeoutMs: config.gitTimeoutMs }),
          logger,
          notify,
          maxAttempts: config.jobMaxAttempts,
          maxFileBytes: config.inventoryMaxFileBytes,
          maxTotalBytes: config.inventoryMaxTotalBytes,
          timeoutMs: config.gitTimeoutMs,
        },
      },
      logger,
    ),
    crawlHandler(
      {
        store: inventories,
        fetcher,
        limits: config.crawl,
        logger,
        notify,
        maxAttempts: config.jobMaxAttempts,
        hosts: new HostLimiter(config.crawl.hostConcurrency),
        parsePage: (body, contentType, url) => pages.parse(body, contentType, url),
        isTooHeavy: (error) => error instanceof PageTooHeavy,
        close: async () => {
          await fetcher.close();
          await pages.close();
        },
      },
      logger,
    ),
    maintenanceHandler({ config, store, inventories, sbomQueue: queues.sbom, preparationQueues: queues.preparation, maintenanceQueue: queues.maintenance, connection: commands, logger }),
  ];
  checkHandlers(handlers);

  const host = await hostQueueHandlers(handlers, {
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    concurrency: config.workerConcurrency,
    lockMs: config.jobLockMs,
    maxAttempts: config.jobMaxAttempts,
    shutdownGraceMs: config.shutdownGraceMs,
    logger,
    outages,
  });

  return {
    queues: handlers.map((h) => h.queue),
    metrics,
    close: async () => {
      await host.close();
      await queues.close();
      await Promise.all([closeRedis(commands), pool.close(), targets.outgoing.close()]);
    },
  };
}
