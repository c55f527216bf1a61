import type { Logger } from '../../logger.js';
import type { InventoryJobData } from '../../jobs/queues.js';
import { preparePackageInventory, type PreparationDeps } from '../../inventory/prepare/package.js';
import { prepareRepositoryInventory, type RepositoryPreparationDeps } from '../../inventory/prepare/repository.js';
import type { QueueHandler } from '../../jobs/handler.js';

/** Queue `inventory`: one preparation per package version or repository commit, named after its kind. */
export function inventoryHandler(deps: { package: PreparationDeps; repository: RepositoryPreparationDeps }, logger: Logger): QueueHandler {
  return {
    queue: 'inventory',
    async process(job) {
      const { inventoryId } = job.data as InventoryJobData;
      let outcome;
      if (job.name === 'package') outcome = await preparePackageInventory(inventoryId, deps.package);
      else if (job.name === 'repository') outcome = await prepareRepositoryInventory(inventoryId, deps.repository);
      else {
        logger.warn({ name: job.name, inventoryId }, 'unknown inventory kind ignored');
        return;
      }
      if (outcome === 'retry') throw new Error('transient failure; retrying with backoff');
    },
  };
}
