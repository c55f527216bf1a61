import { WaitingError } from 'bullmq';
import { crawlSite, type CrawlDeps } from '../../inventory/crawl/crawl.js';
import type { InventoryJobData } from '../../jobs/queues.js';
import type { Logger } from '../../logger.js';
import type { QueueHandler } from '../../jobs/handler.js';

/** Queue `crawl`: one crawl of a documentation site per queue entry. */
export function crawlHandler(deps: CrawlDeps & { close(): Promise<void> }, logger: Logger): QueueHandler {
  return {
    queue: 'crawl',
    async process(job, token, stop) {
      const { inventoryId } = job.data as InventoryJobData;
      const outcome = await crawlSite(inventoryId, deps, stop);
      if (outcome === 'released') {
        // Shutting down: straight back to the wait list for another worker (pages stored so far stay).
        await job.moveToWait(token);
        logger.info({ inventoryId }, 'crawl handed back to the queue');
        throw new WaitingError();
      }
    },
    close: () => deps.close(),
  };
}
