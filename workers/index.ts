import { DelayedError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../src/config.js';
import type { DatabaseHandle } from '../src/db/client.js';
import { DEFAULT_TAR_LIMITS } from '../src/inventory/tar-reader.js';
import { CRAWLER_AGENT } from '../src/inventory/crawl.js';
import { GitSource } from '../src/inventory/sources/git.js';
import { packageSources, targetOutgoing } from '../src/inventory/sources/index.js';
import { addressPolicy, HostLimiter, SiteFetcher } from '../src/inventory/sources/site-fetch.js';
import { InventoryStore } from '../src/inventory/store.js';
import { inventoryChannel } from '../src/inventory/waiter.js';
import { publishEvent, snapshotPublisher } from '../src/jobs/events.js';
import { createQueue, QUEUE_NAMES, type InventoryJobData, type PreparationQueues, type SbomJobData } from '../src/jobs/queues.js';
import { LockLost, ShutdownRequested, type Analyze } from '../src/jobs/runner.js';
import { JobStore } from '../src/jobs/store.js';
import type { Logger } from '../src/logger.js';
import { OutageLog } from '../src/outage-log.js';
import { closeRedis, createRedis } from '../src/redis.js';
import { registryAnalysis } from '../src/registry/analysis.js';
import { loadNpmOptions, type NpmOptions } from '../src/registry/npm-options.js';
import { PgMetadataCache } from '../src/registry/pg-cache.js';
import { PARSER_CONTRACT_VERSION } from '../src/sbom/contract.js';
import { Metrics } from '../src/ops/metrics.js';
import { analysisPoolFor } from '../src/threads/analysis-pool.js';
import { createPagePool, PageTooHeavy } from '../src/threads/page-pool.js';
import { SERVICE_VERSION } from '../src/version.js';
import type { QueueHandler } from './handler.js';
import { crawlHandler } from './crawl.js';
import { inventoryHandler } from './inventory.js';
import { maintenanceHandler } from './maintenance.js';
import { sbomHandler } from './sbom.js';

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

/** How long a job delivered again while its earlier attempt still ends here waits to be taken up. */
const REDELIVERY_DELAY_MS = 1_000;

/** Start-up fails unless every queue has exactly one handler. */
export function checkHandlers(handlers: readonly QueueHandler[]): void {
  for (const name of QUEUE_NAMES) {
    const count = handlers.filter((h) => h.queue === name).length;
    if (count !== 1) throw new Error(`queue "${name}" has ${count} handlers; exactly one is required`);
  }
}

/** Starts one BullMQ worker per queue, each wired by its entry point in this folder. */
export async function startWorkers(deps: WorkerDeps): Promise<RunningWorkers> {
  const { config, database, logger } = deps;
  const outages = new OutageLog(logger);
  const commands = createRedis(config.redisUrl, 'commands', 'pkgscope-worker-commands', logger);
  const store = new JobStore(database.db);
  const sbomQueue = createQueue<SbomJobData>('sbom', commands, config.redisPrefix, outages);
  const maintenanceQueue = createQueue('maintenance', commands, config.redisPrefix, outages);
  const preparationQueues: PreparationQueues = {
    inventory: createQueue<InventoryJobData>('inventory', commands, config.redisPrefix, outages),
    crawl: createQueue<InventoryJobData>('crawl', commands, config.redisPrefix, outages),
  };
  const inventories = new InventoryStore(database.db);
  const metrics = new Metrics('worker');
  metrics.watchQueues([sbomQueue, maintenanceQueue, preparationQueues.inventory, preparationQueues.crawl]);
  const notify = (id: string): Promise<void> => publishEvent(commands, inventoryChannel(config.redisPrefix, id), 'changed', logger);
  const npmOptions = deps.npmOptions ?? (await loadNpmOptions());
  // Package targets' registry and archive requests, under the address policy.
  const outgoing = targetOutgoing(npmOptions, config.packageRegistries, config.registryAllowPrivateAddresses);
  const fetcher = new SiteFetcher({
    allowAddress: addressPolicy(config.siteAllowPrivateAddresses),
    timeoutMs: config.crawl.fetchTimeoutMs,
    maxBytes: config.crawl.maxPageBytes,
    maxRedirects: 10,
    userAgent: `${CRAWLER_AGENT}/${SERVICE_VERSION} (documentation inventory)`,
  });
  const { registry, resolver, ecosystems, registryAccess } = await registryAnalysis({
    cache: new PgMetadataCache(database.db),
    resolutionTimeoutMs: config.resolutionTimeoutMs,
    concurrency: config.registryConcurrency.service,
    ...(deps.npmOptions ? { npmOptions: deps.npmOptions } : {}),
    packageRegistries: config.packageRegistries,
    mavenAllowedRepositories: config.mavenAllowedRepositories,
    observer: metrics,
  });
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
        maxAttempts: config.jobMaxAttempts,
        parserContract: PARSER_CONTRACT_VERSION,
        progressIntervalMs: config.progressIntervalMs,
        holdPhase: config.testHoldPhase,
        crashBackoffMs: config.jobCrashBackoffMs,
        observer: metrics,
      },
      logger,
    ),
    inventoryHandler(
      {
        package: {
          store: inventories,
          sources: packageSources(npmOptions, config.packageRegistries, config.resolutionTimeoutMs, outgoing),
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
    maintenanceHandler({ config, store, inventories, sbomQueue, preparationQueues, maintenanceQueue, connection: commands, logger }),
  ];
  checkHandlers(handlers);

  const running = new Set<AbortController>();
  /** The attempt each job id is running in this process, per queue. */
  const active = new Map<string, AbortController>();
  const connections: Redis[] = [commands];
  const workers = handlers.map((handler) => {
    const connection = createRedis(config.redisUrl, 'blocking', `pkgscope-worker-${handler.queue}`, logger);
    connections.push(connection);
    const worker = new Worker(
      handler.queue,
      async (job, token) => {
        const key = `${handler.queue}:${job.id ?? ''}`;
        const previous = active.get(key);
        if (previous) {
          // BullMQ delivered a job again whose earlier attempt still runs here (its lock lapsed
          // while the process was busy). Two attempts of one job must never overlap in a process:
          // BullMQ's clean-up of the old one would drop the new one's lock renewal, and the job
          // would stall again and again. Stop the old attempt (it is fenced out anyway) and take
          // the job up once it has ended.
          previous.abort(new LockLost());
          await job.moveToDelayed(Date.now() + REDELIVERY_DELAY_MS, token);
          throw new DelayedError();
        }
        const controller = new AbortController();
        running.add(controller);
        active.set(key, controller);
        try {
          await handler.process(job, token, controller.signal);
        } finally {
          running.delete(controller);
          if (active.get(key) === controller) active.delete(key);
        }
      },
      {
        connection,
        prefix: config.redisPrefix,
        concurrency: handler.concurrency ?? config.workerConcurrency,
        lockDuration: config.jobLockMs,
        stalledInterval: config.jobLockMs,
        // A job whose worker died is retried; Postgres attempts bound the retries (one more
        // stall than attempts, so the last crash is seen by a claim and failed in Postgres).
        maxStalledCount: config.jobMaxAttempts + 1,
      },
    );
    // During a Redis outage (or after a flush: "Missing key for job") every poll fails: one
    // structured warning per interval, not a line per retry.
    worker.on('error', (error) => outages.warn(`worker:${handler.queue}`, error, 'queue worker error'));
    // An attempt whose lock could not be renewed is no longer ours: stop it before another worker
    // (or this one, on redelivery) runs the job again.
    worker.on('lockRenewalFailed', (jobIds) => {
      for (const id of jobIds) active.get(`${handler.queue}:${id}`)?.abort(new LockLost());
      logger.warn({ queue: handler.queue, jobIds }, 'queue lock lost; the attempts stop without writing');
    });
    return worker;
  });
  for (const handler of handlers) await handler.start?.();

  return {
    queues: handlers.map((h) => h.queue),
    metrics,
    close: async () => {
      const closing = Promise.all(workers.map((w) => w.close()));
      let timer: NodeJS.Timeout | undefined;
      const graceful = await Promise.race([
        closing.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), config.shutdownGraceMs))),
      ]);
      clearTimeout(timer);
      if (!graceful) {
        logger.warn({ running: running.size }, 'grace period over; handing running jobs back to the queue');
        for (const controller of running) controller.abort(new ShutdownRequested());
        await closing;
      }
      for (const handler of handlers) await handler.close?.();
      await Promise.all([sbomQueue.close(), maintenanceQueue.close(), preparationQueues.inventory.close(), preparationQueues.crawl.close()]);
      await Promise.all([...connections.map(closeRedis), pool.close(), outgoing.close()]);
    },
  };
}
