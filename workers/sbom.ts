import { WaitingError } from 'bullmq';
import type { Logger } from '../src/logger.js';
import { runSbomJob, type RunnerDeps } from '../src/jobs/runner.js';
import type { SbomJobData } from '../src/jobs/queues.js';
import type { QueueHandler } from './handler.js';

/** Queue `sbom`: one lockfile analysis job per queue entry. */
export function sbomHandler(deps: RunnerDeps, logger: Logger): QueueHandler {
  return {
    queue: 'sbom',
    async process(job, token, stop) {
      const { jobId } = job.data as SbomJobData;
      const outcome = await runSbomJob(jobId, deps, stop);
      if (outcome === 'retry') throw new Error('transient failure; retrying with backoff');
      if (outcome === 'released') {
        // Back to the wait list at once for another worker; not a failed attempt.
        await job.moveToWait(token);
        logger.info({ jobId }, 'job handed back to the queue');
        throw new WaitingError();
      }
    },
  };
}
