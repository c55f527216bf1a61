import type { Job } from 'bullmq';
import type { QueueName } from './queues.js';

/** What a queue's entry point provides: how to process one of its jobs. */
export interface QueueHandler {
  readonly queue: QueueName;
  /** Concurrency of this queue's worker; defaults to WORKER_CONCURRENCY. */
  readonly concurrency?: number;
  /** `stop` is aborted (with ShutdownRequested) when the shutdown grace period runs out. */
  process(job: Job, token: string | undefined, stop: AbortSignal): Promise<void>;
  /** Periodic or final housekeeping of the handler. */
  start?(): Promise<void>;
  close?(): Promise<void>;
}
