import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../src/config.js';
import type { Analyze } from '../../src/jobs/runner.js';
import { analyze } from '../../src/sbom/analyze.js';
import type { AnalysisPhase } from '../../src/model/types.js';
import { analysisPoolFor } from '../../src/processes/wiring.js';
import type { RunningWorkers } from '../../src/processes/workers.js';
import { spawnTs } from './cli.js';
import type { JobsHarness } from './jobs.js';

/**
 * Holding a job mid-flight, for tests of crashes, lock loss and shutdown, through the analysis's
 * own `checkpoint` seam (awaited as each phase starts): no test hook in the service's code.
 */

/** Where a held worker holds: at the start of an analysis phase, or between the terminal commit and its publish. */
export type HoldPoint = AnalysisPhase | 'terminal';

/** What a held worker logs (at warn) once it holds a job. */
export const HOLDING = 'held-worker: holding the job until its attempt is stopped';
export const HOLDING_TERMINAL = 'held-worker: holding between the terminal commit and its publish';

/** Resolves never; rejects with the abort reason once `signal` is aborted (the attempt is stopped). */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal === undefined) return;
    const fail = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

/**
 * An analysis that holds every job as it enters `phase` until its attempt is stopped (shutdown,
 * lock loss, fencing): `onHold` is told each time. Runs `inner` (the analysis on this thread by
 * default) with a checkpoint of its own in front of the caller's.
 */
export function holdingAt(phase: AnalysisPhase, onHold: (phase: AnalysisPhase) => void = () => undefined, inner: Analyze = analyze): Analyze {
  return (files, format, deps) =>
    inner(files, format, {
      ...deps,
      checkpoint: async (entered) => {
        await deps.checkpoint?.(entered);
        if (entered !== phase) return;
        onHold(entered);
        await untilAborted(deps.signal);
      },
    });
}

/**
 * In-process workers of the harness whose jobs hold at `phase` until their attempt is stopped,
 * the analysis on a thread of a pool of their own as in the service (so the event loop stays free
 * to renew queue locks while a job holds); closing them closes the pool too.
 */
export async function startHeldWorkers(h: JobsHarness, phase: AnalysisPhase, overrides: Partial<Config> = {}): Promise<RunningWorkers> {
  const pool = analysisPoolFor({ ...h.config, ...overrides }, h.logger);
  try {
    const running = await h.startWorkers(overrides, holdingAt(phase, undefined, pool.analyze));
    return {
      ...running,
      close: async () => {
        await running.close();
        await pool.close();
      },
    };
  } catch (error) {
    await pool.close();
    throw error;
  }
}

const HELD_WORKER = fileURLToPath(new URL('./held-worker.ts', import.meta.url));

/**
 * A worker process like `pkgscope worker` (same configuration from `env`, same queues and
 * drain on SIGTERM) whose jobs are held at `point`; it logs HOLDING or HOLDING_TERMINAL then.
 * Registered like every process a test starts.
 */
export function spawnHeldWorker(point: HoldPoint, env: Record<string, string>): ChildProcess {
  return spawnTs(HELD_WORKER, [point], env, `held worker (${point})`);
}
