import type { Analyze } from '../jobs/runner.js';
import type { AnalyzeDeps } from '../sbom/analyze.js';
import type { Enricher } from '../model/enrich-types.js';
import { AnalysisError, LimitExceededError, TransientAnalysisError, type ProgressCounts } from '../model/types.js';
import { isThreadMessage, fromWire, toWire, type AnalysisOutcome, type AnalysisTask, type CallAnswer, type MainCall, type MainMessage } from './analysis-protocol.js';
import { BudgetExceeded, BudgetPool, PoolSaturated, workerUrl } from './budget-pool.js';

export interface AnalysisPoolOptions {
  readonly threads: number;
  /** Analyses waiting for a thread beyond this are refused (a transient failure: retry later). */
  readonly maxQueue: number;
  /** Time one analysis may compute (registry waits excluded): ANALYSIS_TIME_LIMIT_MS. */
  readonly budgetMs: number;
  /** Heap of one analysis thread: ANALYSIS_MAX_HEAP_MB. */
  readonly maxHeapMb: number;
  /** Told of failures that are not analysis errors (bugs): they still fail as `execution_failed`. */
  readonly onUnexpected?: (error: Error) => void;
}

export interface AnalysisPool {
  /** The analysis, run on a pool thread: the same signature as the in-process `analyze`. */
  readonly analyze: Analyze;
  close(): Promise<void>;
}

/**
 * Where the analysis runs in the API and the workers: never on the event loop. Each run gets a
 * thread of a bounded pool, a time budget and a heap limit; registry calls, progress and
 * checkpoints come back to this thread, so the enrichment cache, shared in-flight fetches,
 * metrics and job snapshots behave exactly as when the analysis ran here.
 */
export function createAnalysisPool(options: AnalysisPoolOptions): AnalysisPool {
  const pool = new BudgetPool<AnalysisTask, AnalysisOutcome>({
    worker: workerUrl('analysis-worker'),
    name: 'analysis',
    maxThreads: options.threads,
    maxQueue: options.maxQueue,
    budgetMs: options.budgetMs,
    maxHeapMb: options.maxHeapMb,
  });

  // Each enricher a caller passes gets a number: a thread's memo of enrichment answers is kept per enricher.
  const enricherIds = new WeakMap<Enricher, number>();
  let enrichers = 0;
  const enricherId = (enricher: Enricher): number => {
    let id = enricherIds.get(enricher);
    if (id === undefined) {
      id = ++enrichers;
      enricherIds.set(enricher, id);
    }
    return id;
  };

  /** `progress` reports for the thread: its last counts with the enricher's. */
  const answer = async (call: MainCall, deps: AnalyzeDeps, progress: (counts: ProgressCounts) => void): Promise<CallAnswer> => {
    switch (call.method) {
      case 'enrich':
        if (!deps.registry) return { metadata: new Map(), failed: [] };
        return deps.registry.enrich(call.coordinates, progress, deps.signal);
      case 'resolve':
        if (!deps.resolver) throw new AnalysisError('resolution_failed', 'no resolver');
        return deps.resolver(call.project, deps.signal);
      case 'checkpoint':
        await deps.checkpoint?.(call.phase);
        return null;
      case 'http': {
        const access = deps.registryAccess;
        // Only the configured registries are reached, whatever a thread asks for.
        const known = [...Object.values(access?.bases ?? {}), ...(access?.mavenAllowedRepositories ?? [])];
        if (!access || !known.some((base) => call.url === base || call.url.startsWith(`${base}/`) || call.url.startsWith(`${base}?`))) {
          throw new TransientAnalysisError('no such registry');
        }
        return access.http.text(call.url, { ...(deps.signal ? { signal: deps.signal } : {}), ...(call.accept === null ? {} : { accept: call.accept }) });
      }
      case 'advisories':
        return deps.advisories ? deps.advisories.byPackages(call.ecosystem, call.names) : [];
      case 'advisory-snapshots':
        return deps.advisories ? deps.advisories.snapshots() : [];
    }
  };

  const analyze: Analyze = async (files, format, deps) => {
    const task: AnalysisTask = {
      files,
      format,
      maxOutputBytes: deps.maxOutputBytes ?? null,
      registry: Boolean(deps.registry),
      resolver: Boolean(deps.resolver),
      checkpoint: deps.checkpoint !== undefined,
      registries: deps.registryAccess ? { ...deps.registryAccess.bases } : null,
      resolutionTimeoutMs: deps.registryAccess?.resolutionTimeoutMs ?? null,
      mavenAllowedRepositories: deps.registryAccess?.mavenAllowedRepositories ?? [],
      environment: deps.environment ?? null,
      nowMs: deps.now ? deps.now().getTime() : null,
      registryId: deps.registry ? enricherId(deps.registry) : null,
      advisories: Boolean(deps.advisories),
    };
    let outcome: AnalysisOutcome;
    // The first failure of a call answered here (a Postgres cache read during a restart, a
    // registry outage): the thread's run fails with a copy of it, but the caller decides on a
    // retry from the original (its class and cause do not cross threads).
    const callFailures: unknown[] = [];
    // The budget clock stops while a call of the thread is answered here: paused when the first
    // outstanding call arrives, running again when the last one is answered.
    let outstanding = 0;
    let lastCounts: ProgressCounts = {};
    try {
      outcome = await pool.run(task, {
        ...(deps.signal ? { signal: deps.signal } : {}),
        onMessage: (message, post, clock) => {
          if (!isThreadMessage(message)) return;
          if (message.type === 'progress') {
            lastCounts = message.progress.counts;
            deps.onProgress?.(message.progress);
            return;
          }
          if (outstanding++ === 0) clock(false);
          const settle = (m: MainMessage): void => {
            if (--outstanding === 0) clock(true);
            post(m);
          };
          const enriching = (counts: ProgressCounts): void => deps.onProgress?.({ phase: 'enriching', counts: { ...lastCounts, ...counts } });
          answer(message.call, deps, enriching).then(
            (value) => settle({ type: 'reply', id: message.id, ok: true, value }),
            (error: unknown) => {
              callFailures.push(error);
              settle({ type: 'reply', id: message.id, ok: false, error: toWire(error) });
            },
          );
        },
      });
    } catch (error) {
      if (error instanceof BudgetExceeded) {
        const code = error.kind === 'time' ? 'resolution_timeout' : 'execution_failed';
        const name = error.kind === 'time' ? 'ANALYSIS_TIME_LIMIT_MS' : 'ANALYSIS_MAX_HEAP_MB';
        throw new LimitExceededError(code, { name, value: error.limit }, error.message);
      }
      if (error instanceof PoolSaturated) throw new TransientAnalysisError(error.message, { cause: error });
      throw error;
    }
    if (outcome.ok) {
      if (outcome.reused > 0) deps.registry?.reused?.(outcome.reused);
      return outcome.result;
    }
    if (callFailures.length > 0 && outcome.error.kind !== 'limit' && outcome.error.kind !== 'analysis') throw callFailures[0];
    const failure = fromWire(outcome.error);
    // Typed failures, and errors with a code (Postgres, network: the runner decides on a retry), as they are.
    if (outcome.error.kind !== 'other' || outcome.error.code !== null) throw failure;
    // A bug met by this input: the same input meets it again, so it is a failure, not a retry.
    options.onUnexpected?.(failure);
    throw new AnalysisError('execution_failed', failure.message, { cause: failure });
  };

  return { analyze, close: () => pool.close() };
}
