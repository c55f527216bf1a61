import type { Logger } from '../src/logger.js';
import type { InventoryJobData } from '../src/jobs/queues.js';
import { preparePackageInventory, type PreparationDeps } from '../src/inventory/prepare.js';
import type { QueueHandler } from './handler.js';

/** Queue `inventory`: one preparation per inventory, named after its kind. */
export function inventoryHandler(deps: PreparationDeps, logger: Logger): QueueHandler {
  return {
    queue: 'inventory',
    async process(job) {
      const { inventoryId } = job.data as InventoryJobData;
      if (job.name !== 'package') {
        logger.warn({ name: job.name, inventoryId }, 'unknown inventory kind ignored');
        return;
      }
      const outcome = await preparePackageInventory(inventoryId, deps);
      if (outcome === 'retry') throw new Error('transient failure; retrying with backoff');
    },
  };
}
