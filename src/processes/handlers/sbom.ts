import { DelayedError, WaitingError, type Job } from 'bullmq';
import type { Logger } from '../../logger.js';
import { OutageLog } from '../../outage-log.js';
import { runSbomJob, type RunnerDeps } from '../../jobs/runner.js';
import type { SbomJobData } from '../../jobs/queues.js';
import { isStoreUnavailable } from '../../store-errors.js';
import type { QueueHandler } from '../../jobs/handler.js';

/** How long a job waits when Postgres or Redis did not answer before it could even be claimed. */
const STORE_OUTAGE_DELAY_MS = 2_000;

/** Moves the job to the delayed set without using a queue attempt (BullMQ's DelayedError). */
async function delay(job: Job, token: string | undefined, ms: number): Promise<never> {
  await job.moveToDelayed(Date.now() + ms, token);
  throw new DelayedError();
}

/** Queue `sbom`: one lockfile analysis job per queue entry. */
export function sbomHandler(deps: RunnerDeps, logger: Logger): QueueHandler {
  const outages = new OutageLog(logger);
  return {
    queue: 'sbom',
    async process(job, token, stop) {
      const { jobId } = job.data as SbomJobData;
      let outcome;
      try {
        outcome = await runSbomJob(jobId, deps, stop);
      } catch (error) {
        // A store outage is nobody's fault: wait for the store without spending queue attempts
        // (Postgres attempts, the truth, are counted by the claim).
        if (!isStoreUnavailable(error)) throw error;
        outages.warn('sbom-jobs', error, 'store unavailable; jobs wait and are tried again');
        return delay(job, token, STORE_OUTAGE_DELAY_MS);
      }
      switch (outcome.kind) {
        case 'done':
          return;
        case 'retry':
          throw new Error('transient failure; retrying with backoff');
        case 'delayed':
          // Behind the jobs already waiting, so a job that crashes its workers cannot starve them.
          return delay(job, token, outcome.delayMs);
        case 'released':
          // Back to the wait list at once for another worker; not a failed attempt.
          await job.moveToWait(token);
          logger.info({ jobId }, 'job handed back to the queue');
          throw new WaitingError();
      }
    },
  };
}
