import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import type { Queue } from 'bullmq';
import type { AppDeps, RoutePlugin } from '../http/app.js';
import { EventHub } from '../jobs/events.js';
import { InventoryCatalog } from '../inventory/store/catalog.js';
import { CompareService } from '../routes/inventory/compare-service.js';
import { GrepService } from '../routes/inventory/grep-service.js';
import { CursorCodec } from '../inventory/query/cursor.js';
import { cursorSecret } from '../inventory/store/cursor-secret.js';
import { ListService } from '../routes/inventory/list-service.js';
import { PackageLister } from '../routes/inventory/listing/package.js';
import { RepositoryLister } from '../routes/inventory/listing/repository.js';
import { ReadyRows, type ListerDeps } from '../routes/inventory/listing/shared.js';
import { SiteLister } from '../routes/inventory/listing/site.js';
import { ReadService } from '../routes/inventory/read-service.js';
import { GitSource } from '../inventory/sources/git.js';
import { InventoryStore } from '../inventory/store/store.js';
import { inventoryChannel, waitForInventory } from '../inventory/prepare/waiter.js';
import { createQueues, enqueueInventory, type DeploymentQueues, type PreparationQueues, type SbomQueue } from '../jobs/queues.js';
import { JobStore } from '../jobs/store.js';
import type { Logger } from '../logger.js';
import { OutageLog } from '../outage-log.js';
import { closeRedis, createRedis } from '../redis.js';
import type { RegistryAnalysis } from '../sbom/registry-analysis.js';
import { loadNpmOptions, type NpmOptions } from '../ecosystems/npm/options.js';
import { Metrics } from '../ops/metrics.js';
import { AdvisoryStore } from '../advisories/store.js';
import { advisoriesRoutes } from '../routes/advisories.js';
import { consoleRoutes } from '../routes/console.js';
import { healthRoutes } from '../routes/health.js';
import { compareRoutes } from '../routes/compare.js';
import { grepRoutes } from '../routes/grep.js';
import { languagesRoutes } from '../routes/languages.js';
import { listRoutes } from '../routes/list.js';
import { mcpRoutes } from '../routes/mcp.js';
import { lockfileJobRoutes } from '../routes/lockfile-jobs.js';
import { openApiRoutes } from '../routes/openapi.js';
import { opsRoutes } from '../routes/ops.js';
import { readRoutes } from '../routes/read.js';
import { sbomRoutes } from '../routes/sbom.js';
import { gatedUploads, UploadGate } from '../routes/upload-gate.js';
import type { Analyze } from '../jobs/runner.js';
import { analysisPoolFor, grepPoolFor, packageTargetsFor, registryAnalysisFor } from './wiring.js';
import { pgAdvisoryLookup } from '../advisories/pg-lookup.js';
import { PackageInspection } from '../packages/inspection.js';
import { FILE_CHANGELOG_READER } from '../packages/changelog-reader.js';
import { UpgradeReview } from '../packages/upgrade-review.js';
import { InventoryVersionFiles } from '../routes/packages-files.js';
import { packagesRoutes, type PackageRouteDeps } from '../routes/packages.js';

/** The collaborators of an API process, made once and shared by its routes. */
export interface ApiServices {
  /** Registry enrichment and resolution for the synchronous SBOM endpoint. */
  readonly analysis: RegistryAnalysis;
  /** The analysis, on the process's thread pool (never on the event loop). */
  readonly analyze: Analyze;
  readonly commands: Redis;
  readonly subscriber: Redis;
  /** Every queue's producer; sbomQueue, preparationQueues and maintenanceQueue name them too. */
  readonly queues: DeploymentQueues;
  readonly sbomQueue: SbomQueue;
  readonly preparationQueues: PreparationQueues;
  readonly maintenanceQueue: Queue;
  readonly hub: EventHub;
  readonly metrics: Metrics;
  readonly store: JobStore;
  readonly inventories: InventoryStore;
  readonly list: ListService;
  readonly reader: ReadService;
  readonly grep: GrepService;
  readonly compare: CompareService;
  /** Package inspection and upgrade reviews. */
  readonly packages: PackageRouteDeps;
  close(): Promise<void>;
}

export async function createApiServices(
  config: Config,
  database: DatabaseHandle,
  logger: Logger,
  npmOptions?: NpmOptions,
): Promise<ApiServices> {
  const options = npmOptions ?? (await loadNpmOptions());
  const metrics = new Metrics('api');
  const analysis = await registryAnalysisFor(config, database, options, metrics);
  const pool = analysisPoolFor(config, logger);
  const grepPool = grepPoolFor(config);
  const outages = new OutageLog(logger);
  const commands = createRedis(config.redisUrl, 'commands', 'pkgscope-api-commands', logger);
  const subscriber = createRedis(config.redisUrl, 'subscriber', 'pkgscope-api-events', logger);
  const queues = createQueues(commands, config.redisPrefix, outages);
  const hub = new EventHub(subscriber, logger);
  metrics.watchQueues(queues.all);
  metrics.includeWorkersFrom(commands, config.redisPrefix);
  const inventories = new InventoryStore(database.db);
  const catalog = new InventoryCatalog(inventories, config.inventoryCatalogMaxBytes);
  const ready = new ReadyRows();
  const listerDeps: ListerDeps = {
    store: inventories,
    ready,
    enqueue: async (row) => {
      try {
        await enqueueInventory(queues.preparation, row.id, row.kind);
      } catch (error) {
        // The row is committed; the reconciler enqueues it once Redis answers again.
        logger.warn({ err: error, inventoryId: row.id }, 'enqueue failed; left to the reconciler');
      }
    },
    wait: async (row, ms, done) => {
      const waited = await waitForInventory(
        hub,
        inventoryChannel(config.redisPrefix, row.id),
        async () => (await inventories.get(row.id)) ?? row,
        done,
        ms,
      );
      return { row: waited.value, completed: waited.outcome === 'completed' };
    },
    failedRetryMs: config.inventoryRetryMs,
  };
  // Package targets' registry requests (version lookups), under the address policy.
  const targets = packageTargetsFor(config, options);
  const cursors = new CursorCodec(await cursorSecret(database.db, config.cursorSecret));
  const list = new ListService({
    store: inventories,
    catalog,
    cursors,
    ready,
    deadlineGraceMs: config.listDeadlineGraceMs,
    listers: {
      package: new PackageLister(listerDeps, targets.sources),
      repository: new RepositoryLister(listerDeps, new GitSource({ hosts: config.gitHosts, cacheDir: config.gitCacheDir, timeoutMs: config.gitTimeoutMs, refsTtlMs: config.gitRefsTtlMs, maxRefs: config.gitMaxRefs })),
      site: new SiteLister(listerDeps, config.siteRefreshMs),
    },
  });
  const reader = new ReadService(inventories, catalog);
  const inspection = new PackageInspection({
    inspectors: targets.inspectors,
    sources: targets.sources,
    advisories: pgAdvisoryLookup(database.db),
    advisoriesOff: config.advisories.dbUrl === null,
  });
  const review = new UpgradeReview(inspection, new InventoryVersionFiles({ list, catalog, reader }), FILE_CHANGELOG_READER);
  return {
    packages: { inspection, review },
    preparationQueues: queues.preparation,
    maintenanceQueue: queues.maintenance,
    queues,
    metrics,
    inventories,
    list,
    reader,
    grep: new GrepService({ list, store: inventories, catalog, cursors, reader, pool: grepPool }),
    compare: new CompareService({ list, catalog, cursors, reader }),
    analysis,
    analyze: pool.analyze,
    commands,
    subscriber,
    sbomQueue: queues.sbom,
    hub,
    store: new JobStore(database.db),
    close: async () => {
      hub.closeAll();
      await queues.close();
      await Promise.all([closeRedis(commands), closeRedis(subscriber), pool.close(), grepPool.close(), targets.outgoing.close()]);
    },
  };
}

export interface RouteSet {
  readonly v1Routes: readonly RoutePlugin[];
  readonly rootRoutes: readonly RoutePlugin[];
  readonly publicRoutes: readonly RoutePlugin[];
}

/** Every queue of the deployment, for the dashboard and queue metrics. */
export function allQueues(services: ApiServices): Queue[] {
  return [...services.queues.all];
}

/** The ops endpoints (metrics, queue dashboard) of the API process. */
export function apiOpsRoutes(config: Config, services: ApiServices): RoutePlugin {
  return opsRoutes({ metrics: services.metrics, queues: allQueues(services), token: config.ops.token, queuesWritable: config.ops.queuesWritable });
}

/** Every route module of the API, wired with its collaborators. */
export function apiRoutes(config: Config, database: DatabaseHandle, services: ApiServices, logger: Logger): RouteSet {
  const analysis = { maxOutputBytes: config.sbomMaxOutputBytes, ...services.analysis };
  const streams = { opened: () => services.metrics.sseStreams.inc(), closed: () => services.metrics.sseStreams.dec() };
  // Ops endpoints share the API port only behind the ops token, and only without an ops port of their own.
  const opsHere = config.ops.port === null && config.ops.token !== null;
  return {
    publicRoutes: [
      healthRoutes({ pool: database.pool, pingRedis: () => services.commands.ping(), onConnectionLost: database.onConnectionLost }),
      openApiRoutes(),
      consoleRoutes(),
      ...(opsHere ? [apiOpsRoutes(config, services)] : []),
    ],
    v1Routes: [
      gatedUploads(new UploadGate(config), [
        lockfileJobRoutes({ config, store: services.store, queue: services.sbomQueue, hub: services.hub, logger, streams }),
        sbomRoutes({ config, analyze: services.analyze, analysis, advisories: pgAdvisoryLookup(database.db), observer: services.metrics }),
      ]),
      listRoutes(services.list),
      readRoutes(services.list, services.reader),
      languagesRoutes(),
      grepRoutes(services.grep),
      compareRoutes(services.compare),
      packagesRoutes(services.packages),
      // The configured ecosystems (none when ADVISORY_DB_URL is off) and any imported one.
      advisoriesRoutes({ sources: () => new AdvisoryStore(database.db).sources(config.advisories.dbUrl === null ? [] : config.advisories.ecosystems) }),
    ],
    rootRoutes: [mcpRoutes()],
  };
}

/** Everything buildApp needs for the API: routes, rate limits on the shared Redis, metrics, stream shutdown. */
export function apiAppDeps(config: Config, database: DatabaseHandle, services: ApiServices, logger: Logger): AppDeps {
  return {
    config,
    database,
    logger,
    ...apiRoutes(config, database, services, logger),
    rateLimitRedis: services.commands,
    observeRequest: (method, route, statusCode, seconds) =>
      services.metrics.httpDuration.observe({ method, route, status_code: String(statusCode) }, seconds),
    // Open event streams end before the server waits for its connections to close.
    preClose: () => services.hub.closeAll(),
  };
}
