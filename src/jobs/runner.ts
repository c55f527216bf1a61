import type { Logger } from '../logger.js';
import type { AnalyzeDeps } from '../sbom/analyze.js';
import { contractMajor } from '../sbom/contract.js';
import {
  AnalysisError,
  TransientAnalysisError,
  type AnalysisResult,
  type FailureCode,
  type InputFile,
  type OutputFormat,
} from '../sbom/types.js';
import type { SnapshotSink } from './events.js';
import { ProgressWriter } from './progress.js';
import type { JobSnapshot } from './snapshot.js';
import type { JobStore } from './store.js';

export type Analyze = (files: readonly InputFile[], format: OutputFormat, deps: AnalyzeDeps) => Promise<AnalysisResult>;

export interface RunnerDeps {
  readonly store: JobStore;
  readonly publish: SnapshotSink;
  readonly logger: Logger;
  readonly analyze: Analyze;
  /** The analysis collaborators (registry, resolver, limits) shared by every job. */
  readonly analysis: Omit<AnalyzeDeps, 'onProgress' | 'signal' | 'checkpoint'>;
  readonly maxAttempts: number;
  readonly parserContract: string;
  readonly progressIntervalMs: number;
  /** Test hook: hold every job when it enters this phase. */
  readonly holdPhase?: 'resolving' | 'enriching' | 'rendering' | null;
  /** Told of phase durations and terminal outcomes (metrics). */
  readonly observer?: JobObserver;
}

/** What a job run reports while it runs. */
export interface JobObserver {
  /** A phase of one attempt ended after `seconds`. */
  phase(phase: string, seconds: number): void;
  /** A job reached a terminal state: `completed`, or `failed` with its error code. */
  finished(outcome: 'completed' | 'failed', code: string | null): void;
}

/**
 * How a run ended, for the queue glue: `done` (terminal snapshot written or nothing to do),
 * `retry` (transient failure, job requeued), `released` (shutdown handed the job back).
 */
export type RunOutcome = 'done' | 'retry' | 'released';

/** Abort reason a worker gives its running jobs when its shutdown grace period is over. */
export class ShutdownRequested extends Error {
  constructor() {
    super('worker shutting down');
    this.name = 'ShutdownRequested';
  }
}

/** A write matched no row: another attempt holds the job now. */
class FencedOut extends Error {}

const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '57P03', '53300', '08000', '08003', '08006']);
const TRANSIENT_NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

/** Failures worth another attempt: registry or network trouble, Postgres serialisation and restarts. */
export function isTransient(error: unknown): boolean {
  if (error instanceof TransientAnalysisError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_NETWORK.has(code));
}

function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

function written(snapshot: JobSnapshot | null): JobSnapshot {
  if (snapshot === null) throw new FencedOut();
  return snapshot;
}

/**
 * Runs one lockfile job attempt: claim (attempt + 1), analyse with throttled progress snapshots,
 * then write the terminal snapshot. Every write is fenced on the claimed attempt; each committed
 * snapshot is published. `stop` aborts the attempt (with ShutdownRequested to hand it back).
 */
export async function runSbomJob(jobId: string, deps: RunnerDeps, stop?: AbortSignal): Promise<RunOutcome> {
  const { store, logger } = deps;
  const log = logger.child({ jobId });
  const claim = await store.claim(jobId);
  if (claim === null) {
    log.info('job is finished, expired or gone; nothing to run');
    return 'done';
  }
  const { attempt } = claim;
  await deps.publish(claim.snapshot);
  const controller = new AbortController();
  if (stop?.aborted === true) controller.abort(stop.reason);
  stop?.addEventListener('abort', () => controller.abort(stop.reason), { once: true });
  const failWith = async (code: FailureCode): Promise<RunOutcome> => {
    await deps.publish(written(await store.fail(jobId, attempt, code)));
    deps.observer?.finished('failed', code);
    log.info({ attempt, error: code }, 'job failed');
    return 'done';
  };

  try {
    if (attempt > deps.maxAttempts) {
      log.warn({ attempt, maxAttempts: deps.maxAttempts }, 'job exceeded its attempts');
      return await failWith('execution_failed');
    }
    if (contractMajor(claim.parserContract) !== contractMajor(deps.parserContract)) return await failWith('parser_contract_changed');
    const files = await store.loadInputs(jobId);
    if (files === null) return await failWith('execution_record_unavailable');
    const result = await analyseWithProgress(jobId, attempt, files, claim.format, deps, controller, log);
    await deps.publish(
      written(
        await store.succeed(
          jobId,
          attempt,
          { mediaType: result.mediaType, document: result.document, byteSize: result.byteSize },
          result.counts,
        ),
      ),
    );
    deps.observer?.finished('completed', null);
    log.info({ attempt, bytes: result.byteSize }, 'job succeeded');
    return 'done';
  } catch (error) {
    // An aborted analysis throws the abort reason; the reason says why the attempt stopped.
    const reason: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
    try {
      if (error instanceof FencedOut || reason instanceof FencedOut) {
        log.warn({ attempt }, 'another attempt took the job over; this attempt stops without writing');
        return 'done';
      }
      if (error instanceof ShutdownRequested || reason instanceof ShutdownRequested) {
        await deps.publish(written(await store.requeue(jobId, attempt)));
        log.info({ attempt }, 'job released for another worker (shutdown)');
        return 'released';
      }
      if (error instanceof AnalysisError) return await failWith(error.code);
      if ((isTransient(error) || isTransient(reason)) && attempt < deps.maxAttempts) {
        log.warn({ err: error, attempt }, 'transient failure; the job will be retried');
        await deps.publish(written(await store.requeue(jobId, attempt)));
        return 'retry';
      }
      log.error({ err: error, attempt }, 'job failed unexpectedly');
      return await failWith('execution_failed');
    } catch (writeError) {
      if (writeError instanceof FencedOut) return 'done';
      throw writeError;
    }
  }
}

async function analyseWithProgress(
  jobId: string,
  attempt: number,
  files: readonly InputFile[],
  format: OutputFormat,
  deps: RunnerDeps,
  controller: AbortController,
  log: Logger,
): Promise<AnalysisResult> {
  const writer = new ProgressWriter(
    async (phase, counts) => {
      const snapshot = await deps.store.progress(jobId, attempt, phase, counts);
      if (snapshot !== null) await deps.publish(snapshot);
      return snapshot;
    },
    deps.progressIntervalMs,
    (error) => controller.abort(error ?? new FencedOut()),
  );
  // Phase durations: each phase lasts until the next one is reported (the last until the end).
  let phase: { name: string; since: number } | null = null;
  const phaseEnded = (): void => {
    if (phase !== null) deps.observer?.phase(phase.name, (performance.now() - phase.since) / 1000);
  };
  try {
    return await deps.analyze(files, format, {
      ...deps.analysis,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase !== phase?.name) {
          phaseEnded();
          phase = { name: p.phase, since: performance.now() };
        }
        writer.report(p.phase, p.counts);
      },
      checkpoint: async (phase) => {
        if (deps.holdPhase !== phase) return;
        log.warn({ phase }, 'TEST_HOLD_PHASE: holding the job until the attempt is stopped');
        await waitForAbort(controller.signal);
      },
    });
  } finally {
    phaseEnded();
    // A failed progress write surfaces here unless the attempt was already stopping anyway.
    await writer.close().catch((error: unknown) => {
      if (!controller.signal.aborted) throw error;
    });
  }
}
