import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';

/** Every queue the workers serve; start-up fails if one has no handler or two. */
export const QUEUE_NAMES = ['sbom', 'maintenance'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export interface SbomJobData {
  readonly jobId: string;
}

export type SbomQueue = Queue<SbomJobData>;

export function createQueue<T>(name: QueueName, connection: Redis, prefix: string): Queue<T> {
  return new Queue<T>(name, { connection, prefix });
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

export async function enqueueSbomJob(queue: SbomQueue, jobId: string, maxAttempts: number): Promise<void> {
  await queue.add('analyze', { jobId }, sbomJobOptions(jobId, maxAttempts));
}
