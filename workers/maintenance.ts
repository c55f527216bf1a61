import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../src/config.js';
import type { Logger } from '../src/logger.js';
import {
  ensureMaintenanceSchedules,
  expireJobs,
  reconcileInventories,
  reconcileJobs,
  type UnfinishedInventories,
  type UnknownEntries,
} from '../src/jobs/maintenance.js';
import type { PreparationQueues, SbomQueue } from '../src/jobs/queues.js';
import type { JobStore } from '../src/jobs/store.js';
import type { QueueHandler } from './handler.js';

/** Queue `maintenance`: the reconciler and the expiry sweeper, run by BullMQ job schedulers. */
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
  const intervals = { reconcile: config.reconcileIntervalMs, expire: config.expiryIntervalMs };
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
      deps.connection.on('ready', onReady);
      // Schedulers live in Redis: should Redis lose them (a flush, a restart without
      // persistence), checking twice per reconcile interval restores them within one.
      timer = setInterval(() => void ensure(), Math.max(250, Math.min(config.reconcileIntervalMs / 2, 10_000)));
      timer.unref();
    },
    async close() {
      if (timer !== null) clearInterval(timer);
      deps.connection.off('ready', onReady);
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
      } else {
        logger.warn({ name: job.name }, 'unknown maintenance task ignored');
      }
    },
  };
}
