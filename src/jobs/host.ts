import { DelayedError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { OutageLog } from '../outage-log.js';
import { closeRedis, createRedis } from '../redis.js';
import type { QueueHandler } from './handler.js';
import { QUEUE_NAMES } from './queues.js';
import { LockLost, ShutdownRequested } from './runner.js';

/** How long a job delivered again while its earlier attempt still ends here waits to be taken up. */
const REDELIVERY_DELAY_MS = 1_000;

export interface QueueHostOptions {
  readonly redisUrl: string;
  readonly prefix: string;
  /** Concurrency of a queue whose handler names none. */
  readonly concurrency: number;
  readonly lockMs: number;
  readonly maxAttempts: number;
  /** How long running jobs may take to finish at close before they are handed back. */
  readonly shutdownGraceMs: number;
  readonly logger: Logger;
  readonly outages: OutageLog;
}

export interface QueueHost {
  /** Stops taking jobs, lets running ones finish within the grace period, then hands them back; closes the handlers and the host's connections. */
  close(): Promise<void>;
}

/** Start-up fails unless every queue has exactly one handler. */
export function checkHandlers(handlers: readonly QueueHandler[]): void {
  for (const name of QUEUE_NAMES) {
    const count = handlers.filter((h) => h.queue === name).length;
    if (count !== 1) throw new Error(`queue "${name}" has ${count} handlers; exactly one is required`);
  }
}

/** One BullMQ worker per handler, each on a blocking connection of its own; the handlers' `start` runs once all are up. */
export async function hostQueueHandlers(handlers: readonly QueueHandler[], options: QueueHostOptions): Promise<QueueHost> {
  const { logger, outages } = options;
  const running = new Set<AbortController>();
  /** The attempt each job id is running in this process, per queue. */
  const active = new Map<string, AbortController>();
  const connections: Redis[] = [];
  const workers = handlers.map((handler) => {
    const connection = createRedis(options.redisUrl, 'blocking', `pkgscope-worker-${handler.queue}`, logger);
    connections.push(connection);
    const worker = new Worker(
      handler.queue,
      async (job, token) => {
        const key = `${handler.queue}:${job.id ?? ''}`;
        const previous = active.get(key);
        if (previous) {
          // BullMQ delivered a job again whose earlier attempt still runs here (its lock lapsed
          // while the process was busy). Two attempts of one job must never overlap in a process:
          // BullMQ's clean-up of the old one would drop the new one's lock renewal, and the job
          // would stall again and again. Stop the old attempt (it is fenced out anyway) and take
          // the job up once it has ended.
          previous.abort(new LockLost());
          await job.moveToDelayed(Date.now() + REDELIVERY_DELAY_MS, token);
          throw new DelayedError();
        }
        const controller = new AbortController();
        running.add(controller);
        active.set(key, controller);
        try {
          await handler.process(job, token, controller.signal);
        } finally {
          running.delete(controller);
          if (active.get(key) === controller) active.delete(key);
        }
      },
      {
        connection,
        prefix: options.prefix,
        concurrency: handler.concurrency ?? options.concurrency,
        lockDuration: options.lockMs,
        stalledInterval: options.lockMs,
        // A job whose worker died is retried; Postgres attempts bound the retries (one more
        // stall than attempts, so the last crash is seen by a claim and failed in Postgres).
        maxStalledCount: options.maxAttempts + 1,
      },
    );
    // During a Redis outage (or after a flush: "Missing key for job") every poll fails: one
    // structured warning per interval, not a line per retry.
    worker.on('error', (error) => outages.warn(`worker:${handler.queue}`, error, 'queue worker error'));
    // An attempt whose lock could not be renewed is no longer ours: stop it before another worker
    // (or this one, on redelivery) runs the job again.
    worker.on('lockRenewalFailed', (jobIds) => {
      for (const id of jobIds) active.get(`${handler.queue}:${id}`)?.abort(new LockLost());
      logger.warn({ queue: handler.queue, jobIds }, 'queue lock lost; the attempts stop without writing');
    });
    return worker;
  });
  for (const handler of handlers) await handler.start?.();

  return {
    close: async () => {
      const closing = Promise.all(workers.map((w) => w.close()));
      let timer: NodeJS.Timeout | undefined;
      const graceful = await Promise.race([
        closing.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), options.shutdownGraceMs))),
      ]);
      clearTimeout(timer);
      if (!graceful) {
        logger.warn({ running: running.size }, 'grace period over; handing running jobs back to the queue');
        for (const controller of running) controller.abort(new ShutdownRequested());
        await closing;
      }
      for (const handler of handlers) await handler.close?.();
      await Promise.all(connections.map(closeRedis));
    },
  };
}
