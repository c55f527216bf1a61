import type { AdvisoryLookup } from '../advisories/types.js';
import type { Logger } from '../logger.js';
import { isStoreUnavailable, NETWORK_CODES } from '../store-errors.js';
import type { AnalyzeDeps } from '../sbom/analyze.js';
import { contractMajor } from '../sbom/contract.js';
import {
  AnalysisError,
  TransientAnalysisError,
  type AnalysisResult,
  type FailureCode,
  type FileProblem,
  type InputFile,
  type OutputFormat,
} from '../model/types.js';
import { INVALID_DOCUMENT_LOG, invalidDocumentLog } from '../sbom/validate/defects.js';
import type { SnapshotSink } from './events.js';
import { ProgressWriter } from './progress.js';
import type { JobSnapshot } from './snapshot.js';
import type { JobInputs, JobStore } from './store.js';

export type Analyze = (files: readonly InputFile[], format: OutputFormat, deps: AnalyzeDeps) => Promise<AnalysisResult>;

export interface RunnerDeps {
  readonly store: JobStore;
  readonly publish: SnapshotSink;
  readonly logger: Logger;
  readonly analyze: Analyze;
  /** The analysis collaborators (registry, resolver, limits) shared by every job. */
  readonly analysis: Omit<AnalyzeDeps, 'onProgress' | 'signal' | 'checkpoint' | 'advisories'>;
  /** Where a job asking for vulnerabilities has its components matched (the advisory mirror). */
  readonly advisories?: AdvisoryLookup;
  readonly maxAttempts: number;
  readonly parserContract: string;
  readonly progressIntervalMs: number;
  /** First delay before a job whose worker crashed is run again; doubles per attempt. */
  readonly crashBackoffMs?: number;
  /** Told of phase durations and terminal outcomes (metrics). */
  readonly observer?: JobObserver;
}

/** Told of documents the service wrote that its own validation rejected (`invalid_response`: a defect of ours). */
export interface DefectObserver {
  invalidDocument(format: OutputFormat): void;
}

/** What a job run reports while it runs. */
export interface JobObserver extends DefectObserver {
  /** A phase of one attempt ended after `seconds`. */
  phase(phase: string, seconds: number): void;
  /** A job reached a terminal state: `completed`, or `failed` with its error code. */
  finished(outcome: 'completed' | 'failed', code: string | null): void;
}

/**
 * How a run ended, for the queue glue: `done` (terminal snapshot written or nothing to do),
 * `retry` (transient failure, job requeued), `released` (shutdown handed the job back, no
 * attempt used), `delayed` (the previous attempt crashed its worker: run again after `delayMs`).
 */
export type RunOutcome = { readonly kind: 'done' | 'retry' | 'released' } | { readonly kind: 'delayed'; readonly delayMs: number };

const DONE: RunOutcome = { kind: 'done' };

/** Exponential, with jitter so the jobs of one crashed worker do not all come back at once. */
export function crashBackoffMs(attempt: number, baseMs = 1_000): number {
  const exponential = Math.min(60_000, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.75 + Math.random() * 0.5));
}

/** Abort reason a worker gives its running jobs when its shutdown grace period is over. */
export class ShutdownRequested extends Error {
  constructor() {
    super('worker shutting down');
    this.name = 'ShutdownRequested';
  }
}

/** A write matched no row: another attempt holds the job now. */
class FencedOut extends Error {}

/**
 * Abort reason for an attempt whose queue lock lapsed (BullMQ will deliver the job again): like a
 * fenced-out attempt, it stops without writing anything.
 */
export class LockLost extends FencedOut {
  constructor() {
    super('the queue lock of this attempt was lost');
    this.name = 'LockLost';
  }
}

/** Failures worth another attempt: registry or network trouble, Postgres or Redis restarts and lost sessions. */
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof TransientAnalysisError || isStoreUnavailable(error) || (typeof code === 'string' && NETWORK_CODES.has(code));
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
  const claimed = await store.claim(jobId, deps.maxAttempts);
  switch (claimed.kind) {
    case 'finished':
      // The worker that committed it may have died before publishing: publish it again.
      if (claimed.snapshot !== null) await deps.publish(claimed.snapshot);
      log.info('job is finished, expired or gone; nothing to run');
      return DONE;
    case 'exhausted':
      await deps.publish(claimed.snapshot);
      deps.observer?.finished('failed', 'execution_failed');
      log.warn({ attempt: claimed.snapshot.attempt, maxAttempts: deps.maxAttempts }, 'job used up its attempts');
      return DONE;
    case 'crashed': {
      await deps.publish(claimed.snapshot);
      const delayMs = crashBackoffMs(claimed.snapshot.attempt, deps.crashBackoffMs);
      log.warn({ attempt: claimed.snapshot.attempt, delayMs }, 'the previous attempt crashed its worker; retrying after a backoff');
      return { kind: 'delayed', delayMs };
    }
    case 'claimed':
      break;
  }
  const claim = claimed.claim;
  const { attempt } = claim;
  await deps.publish(claim.snapshot);
  const controller = new AbortController();
  if (stop?.aborted === true) controller.abort(stop.reason);
  stop?.addEventListener('abort', () => controller.abort(stop.reason), { once: true });
  /** Publishes a committed terminal snapshot. */
  const publishTerminal = async (snapshot: JobSnapshot | null): Promise<void> => {
    await deps.publish(written(snapshot));
  };
  const failWith = async (code: FailureCode, problems: readonly FileProblem[] = []): Promise<RunOutcome> => {
    await publishTerminal(await store.fail(jobId, attempt, code, problems));
    deps.observer?.finished('failed', code);
    log.info({ attempt, error: code }, 'job failed');
    return DONE;
  };

  try {
    if (contractMajor(claim.parserContract) !== contractMajor(deps.parserContract)) return await failWith('parser_contract_changed');
    const { inputs } = claimed;
    if (inputs === null) return await failWith('execution_record_unavailable');
    const result = await analyseWithProgress(jobId, attempt, inputs, claim.format, deps, controller);
    await publishTerminal(
      await store.succeed(jobId, attempt, { mediaType: result.mediaType, document: result.document, byteSize: result.byteSize }, result.counts),
    );
    deps.observer?.finished('completed', null);
    log.info({ attempt, bytes: result.byteSize }, 'job succeeded');
    return DONE;
  } catch (error) {
    // An aborted analysis throws the abort reason; the reason says why the attempt stopped.
    const reason: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
    try {
      if (error instanceof FencedOut || reason instanceof FencedOut) {
        log.warn({ attempt }, 'another attempt took the job over; this attempt stops without writing');
        return DONE;
      }
      if (error instanceof ShutdownRequested || reason instanceof ShutdownRequested) {
        await deps.publish(written(await store.release(jobId, attempt)));
        log.info({ attempt, attemptCounted: false }, 'job released for another worker (shutdown)');
        return { kind: 'released' };
      }
      if (error instanceof AnalysisError) {
        if (error.code === 'invalid_response') {
          // Not the caller's doing: loud, with what an operator needs to find the defect.
          deps.observer?.invalidDocument(claim.format);
          log.error({ attempt, format: claim.format, error: error.code, ...invalidDocumentLog(error) }, INVALID_DOCUMENT_LOG);
        }
        return await failWith(error.code, error.problems);
      }
      if (isStoreUnavailable(error) || isStoreUnavailable(reason)) {
        // Postgres or Redis went away under the job: the job did not fail, so the attempt is
        // given back, and the job waits for the store rather than running down its attempts.
        log.warn({ error: describe(error), attempt }, 'store unavailable; the job is handed back and retried');
        await deps.publish(written(await whileUnavailable(() => store.release(jobId, attempt))));
        return { kind: 'delayed', delayMs: STORE_OUTAGE_RETRY_MS };
      }
      if ((isTransient(error) || isTransient(reason)) && attempt < deps.maxAttempts) {
        log.warn({ error: describe(error), attempt }, 'transient failure; the job will be retried');
        await deps.publish(written(await store.requeue(jobId, attempt)));
        return { kind: 'retry' };
      }
      log.error({ err: error, attempt }, 'job failed unexpectedly');
      return await failWith('execution_failed');
    } catch (writeError) {
      if (writeError instanceof FencedOut) return DONE;
      throw writeError;
    }
  }
}

/** How long a job handed back because of a store outage waits before it runs again. */
const STORE_OUTAGE_RETRY_MS = 2_000;
/** How long the hand-back write itself keeps trying while the store is down. */
const HAND_BACK_PATIENCE_MS = 30_000;

/**
 * Retries a write while the store is unavailable, up to HAND_BACK_PATIENCE_MS: a restart takes
 * seconds, and a hand-back that never lands would make the next claim see a crash.
 */
async function whileUnavailable<T>(write: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
    try {
      return await write();
    } catch (error) {
      if (!isStoreUnavailable(error) || Date.now() - started > HAND_BACK_PATIENCE_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** A failure worth a log line without its stack (outages repeat; the code and message say it). */
function describe(error: unknown): { code?: unknown; message: string } {
  return error instanceof Error ? { code: (error as { code?: unknown }).code, message: error.message } : { message: String(error) };
}

async function analyseWithProgress(
  jobId: string,
  attempt: number,
  inputs: JobInputs,
  format: OutputFormat,
  deps: RunnerDeps,
  controller: AbortController,
): Promise<AnalysisResult> {
  const writer = new ProgressWriter(
    async (phase, counts) => {
      const snapshot = await deps.store.progress(jobId, attempt, phase, counts);
      if (snapshot !== null) await deps.publish(snapshot);
      return snapshot;
    },
    deps.progressIntervalMs,
    (error) => controller.abort(error ?? new FencedOut()),
    Date.now,
    // The claim wrote the job's first running phase just now.
    { phase: 'resolving', at: Date.now() },
  );
  // Phase durations: each phase lasts until the next one is reported (the last until the end).
  let phase: { name: string; since: number } | null = null;
  const phaseEnded = (): void => {
    if (phase !== null) deps.observer?.phase(phase.name, (performance.now() - phase.since) / 1000);
  };
  try {
    return await deps.analyze(inputs.files, format, {
      ...deps.analysis,
      environment: inputs.environment,
      ...(inputs.vulnerabilities && deps.advisories ? { advisories: deps.advisories } : {}),
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase !== phase?.name) {
          phaseEnded();
          phase = { name: p.phase, since: performance.now() };
        }
        writer.report(p.phase, p.counts);
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
