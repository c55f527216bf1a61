import type { Queue } from 'bullmq';
import type { Config } from '../src/config.js';
import type { Logger } from '../src/logger.js';
import {
  ensureMaintenanceSchedules,
  expireJobs,
  reconcileInventories,
  reconcileJobs,
  type UnfinishedInventories,
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
  logger: Logger;
}): QueueHandler {
  const { config, store, logger } = deps;
  const intervals = { reconcile: config.reconcileIntervalMs, expire: config.expiryIntervalMs };
  let timer: NodeJS.Timeout | null = null;
  const ensure = async (): Promise<void> => {
    try {
      await ensureMaintenanceSchedules(deps.maintenanceQueue, intervals);
    } catch (error) {
      logger.warn({ err: error }, 'could not ensure maintenance schedules');
    }
  };
  return {
    queue: 'maintenance',
    concurrency: 1,
    async start() {
      await ensure();
      // Schedulers live in Redis: re-create them should Redis lose its data.
      timer = setInterval(() => void ensure(), Math.max(1_000, config.reconcileIntervalMs));
      timer.unref();
    },
    async close() {
      if (timer !== null) clearInterval(timer);
    },
    async process(job) {
      if (job.name === 'reconcile') {
        const result = await reconcileJobs(
          store,
          deps.sbomQueue,
          { graceMs: config.reconcileGraceMs, batch: 500, maxAttempts: config.jobMaxAttempts },
          logger,
        );
        const inventories = await reconcileInventories(deps.inventories, deps.preparationQueues, config.reconcileGraceMs, logger);
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
