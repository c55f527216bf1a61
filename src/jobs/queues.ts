import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { OutageLog } from '../outage-log.js';

/** Every queue the workers serve; start-up fails if one has no handler or two. */
export const QUEUE_NAMES = ['sbom', 'inventory', 'crawl', 'maintenance'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export interface SbomJobData {
  readonly jobId: string;
}

export type SbomQueue = Queue<SbomJobData>;

/**
 * A producer of `name`. BullMQ prints the errors of a queue without an 'error' listener to
 * stderr, a stack trace per reconnect attempt; they go to the outage log instead.
 */
export function createQueue<T>(name: QueueName, connection: Redis, prefix: string, outages?: OutageLog): Queue<T> {
  const queue = new Queue<T>(name, { connection, prefix });
  queue.on('error', (error) => outages?.warn(`queue:${name}`, error, 'queue connection problem'));
  return queue;
}

/** The queue entry of a lockfile job: its id is the job's UUID, so adding twice is harmless. */
export function sbomJobOptions(jobId: string, maxAttempts: number): JobsOptions {
  return {
    jobId,
    attempts: maxAttempts,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: true,
    removeOnFail: { age: 86_400, count: 1_000 },
  };
}

export interface InventoryJobData {
  readonly inventoryId: string;
}

export type InventoryQueue = Queue<InventoryJobData>;

/** Where inventories are prepared: packages and repositories on `inventory`, site crawls on `crawl`. */
export interface PreparationQueues {
  readonly inventory: InventoryQueue;
  readonly crawl: InventoryQueue;
}

export function preparationQueue(queues: PreparationQueues, kind: string): InventoryQueue {
  return kind === 'site' ? queues.crawl : queues.inventory;
}

/**
 * The preparation job of an inventory, named after its kind, on its kind's queue. Its id is the
 * inventory's, so requests arriving together add it once; finished jobs are removed so a retry
 * or refresh can add it again.
 */
export async function enqueueInventory(queues: PreparationQueues, inventoryId: string, kind: string): Promise<void> {
  await preparationQueue(queues, kind).add(kind, { inventoryId }, {
    jobId: `inv-${inventoryId}`,
    attempts: 3,
    backoff: { type: 'exponential', delay: 2_000 },
    removeOnComplete: true,
    removeOnFail: true,
  });
}

export async function enqueueSbomJob(queue: SbomQueue, jobId: string, maxAttempts: number): Promise<void> {
  await queue.add('analyze', { jobId }, sbomJobOptions(jobId, maxAttempts));
}

/** The producers of every queue of the deployment, on one commands connection. */
export interface DeploymentQueues {
  readonly sbom: SbomQueue;
  readonly preparation: PreparationQueues;
  readonly maintenance: Queue;
  /** Every queue, in QUEUE_NAMES order (dashboard, queue metrics). */
  readonly all: readonly Queue[];
  close(): Promise<void>;
}

/** Opens a producer of each queue; the API and the workers share this wiring. */
export function createQueues(connection: Redis, prefix: string, outages: OutageLog): DeploymentQueues {
  const sbom = createQueue<SbomJobData>('sbom', connection, prefix, outages);
  const preparation: PreparationQueues = {
    inventory: createQueue<InventoryJobData>('inventory', connection, prefix, outages),
    crawl: createQueue<InventoryJobData>('crawl', connection, prefix, outages),
  };
  const maintenance = createQueue('maintenance', connection, prefix, outages);
  const all: readonly Queue[] = [sbom, preparation.inventory, preparation.crawl, maintenance];
  return {
    sbom,
    preparation,
    maintenance,
    all,
    close: async () => {
      await Promise.all(all.map((queue) => queue.close()));
    },
  };
}
