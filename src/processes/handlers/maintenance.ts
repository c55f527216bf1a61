import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import { advisorySync } from '../../advisories/maintenance.js';
import {
  ensureMaintenanceSchedules,
  expireJobs,
  reconcileInventories,
  reconcileJobs,
  requestAdvisorySync,
  type UnfinishedInventories,
  type UnknownEntries,
} from '../../jobs/maintenance.js';
import type { PreparationQueues, SbomQueue } from '../../jobs/queues.js';
import type { JobStore } from '../../jobs/store.js';
import type { QueueHandler } from '../../jobs/handler.js';

/** Queue `maintenance`: the reconciler, the expiry sweeper and the advisory sync, run by BullMQ job schedulers. */
export function maintenanceHandler(deps: {
  config: Config;
  store: JobStore;
  inventories: UnfinishedInventories;
  sbomQueue: SbomQueue;
  preparationQueues: PreparationQueues;
  maintenanceQueue: Queue;
  /** The connection the maintenance queue uses: its reconnects trigger a check at once. */
  connection: Redis;
  logger: Logger;
}): QueueHandler {
  const { config, store, logger } = deps;
  const intervals = {
    reconcile: config.reconcileIntervalMs,
    expire: config.expiryIntervalMs,
    advisories: config.advisories.dbUrl === null ? null : config.advisories.syncIntervalMs,
  };
  // Null when ADVISORY_DB_URL is off; its Postgres pool and HTTP stack open at start.
  const advisoryDb = config.advisories.dbUrl;
  const advisories =
    advisoryDb === null
      ? null
      : advisorySync({ databaseUrl: config.databaseUrl, baseUrl: advisoryDb, ecosystems: config.advisories.ecosystems, allowPrivate: config.registryAllowPrivateAddresses }, logger);
  const unknownJobs: UnknownEntries = new Map();
  const unknownInventories: UnknownEntries = new Map();
  let timer: NodeJS.Timeout | null = null;
  let ensuring = false;
  const ensure = async (): Promise<void> => {
    if (ensuring) return;
    ensuring = true;
    try {
      const created = await ensureMaintenanceSchedules(deps.maintenanceQueue, intervals);
      if (created.length > 0) logger.info({ created }, 'maintenance schedules (re)created');
    } catch (error) {
      // Redis is down: the connection's outage log says so; the next check tries again.
      logger.debug({ error: (error as Error).message }, 'could not ensure maintenance schedules');
    } finally {
      ensuring = false;
    }
  };
  // A Redis that restarted empty has no schedulers: check as soon as the connection is back.
  const onReady = (): void => void ensure();
  return {
    queue: 'maintenance',
    concurrency: 1,
    async start() {
      await ensure();
      // Every process syncs at start-up too (a scheduler that already exists waits its interval).
      if (advisories !== null) await requestAdvisorySync(deps.maintenanceQueue).catch((error: unknown) => logger.debug({ error: (error as Error).message }, 'could not ask for an advisory sync'));
      deps.connection.on('ready', onReady);
      // Schedulers live in Redis: should Redis lose them (a flush, a restart without
      // persistence), checking twice per reconcile interval restores them within one.
      timer = setInterval(() => void ensure(), Math.max(250, Math.min(config.reconcileIntervalMs / 2, 10_000)));
      timer.unref();
    },
    async close() {
      if (timer !== null) clearInterval(timer);
      deps.connection.off('ready', onReady);
      await advisories?.close();
    },
    async process(job) {
      if (job.name === 'reconcile') {
        const result = await reconcileJobs(
          store,
          deps.sbomQueue,
          { graceMs: config.reconcileGraceMs, batch: 500, maxAttempts: config.jobMaxAttempts },
          logger,
          unknownJobs,
        );
        const inventories = await reconcileInventories(deps.inventories, deps.preparationQueues, config.reconcileGraceMs, logger, unknownInventories);
        if (result.requeued + inventories > 0) logger.info({ ...result, inventories }, 'reconciliation done');
      } else if (job.name === 'expire') {
        const deleted = await expireJobs(store, 500, 20);
        if (deleted > 0) logger.info({ deleted }, 'expired jobs deleted');
      } else if (job.name === 'advisories') {
        // In the background: the reconciler's next run must not wait for a download and import.
        if (advisories === null) logger.debug('advisory sync asked for while ADVISORY_DB_URL is off; nothing to do');
        else advisories.trigger();
      } else {
        logger.warn({ name: job.name }, 'unknown maintenance task ignored');
      }
    },
  };
}
