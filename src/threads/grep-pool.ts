import type { GrepPattern } from '../inventory/query/grep.js';
import type { BatchInput, BatchScan } from '../inventory/query/grep-scan.js';
import { BudgetExceeded, BudgetPool, PoolSaturated, workerUrl } from './budget-pool.js';
import type { GrepOutcome, GrepTask } from './grep-worker.js';

export interface GrepPoolOptions {
  readonly threads: number;
  /** Requests waiting for a thread beyond this are refused (GrepPoolBusy). */
  readonly maxQueue: number;
  /** Backstop of one task: grep-scan stops itself at the request's time bound long before. */
  readonly budgetMs: number;
  readonly maxHeapMb: number;
}

/** Every grep thread is busy and the queue is full: retry later. */
export class GrepPoolBusy extends Error {
  constructor(cause: PoolSaturated) {
    super(cause.message, { cause });
    this.name = 'GrepPoolBusy';
  }
}

/** A task went over the backstop budget; its thread was replaced. */
export class GrepTaskOverBudget extends Error {
  constructor(cause: BudgetExceeded) {
    super(cause.message, { cause });
    this.name = 'GrepTaskOverBudget';
  }
}

export interface GrepPool {
  /** The program size of a pattern, or why it cannot run (a GrepPatternError's message). */
  compile(pattern: GrepPattern): Promise<{ ok: true; programSize: number } | { ok: false; message: string }>;
  /** Matches a batch of files (see grep-scan's scanBatch). */
  scan(pattern: GrepPattern, input: BatchInput): Promise<BatchScan | { invalid: string }>;
  close(): Promise<void>;
}

/**
 * Grep's compiling and matching on a bounded thread pool (piscina, as the analysis runs): a
 * pattern whose program makes every character cost thousands of steps costs a grep thread its
 * time, never the API's event loop, so probes and other requests answer meanwhile.
 */
export function createGrepPool(options: GrepPoolOptions): GrepPool {
  const pool = new BudgetPool<GrepTask, GrepOutcome>({
    worker: workerUrl('grep-worker'),
    name: 'grep',
    maxThreads: options.threads,
    maxQueue: options.maxQueue,
    budgetMs: options.budgetMs,
    maxHeapMb: options.maxHeapMb,
  });
  const run = async (task: GrepTask): Promise<GrepOutcome> => {
    try {
      return await pool.run(task, {});
    } catch (error) {
      if (error instanceof PoolSaturated) throw new GrepPoolBusy(error);
      if (error instanceof BudgetExceeded) throw new GrepTaskOverBudget(error);
      throw error;
    }
  };
  return {
    async compile(pattern) {
      const outcome = await run({ kind: 'compile', pattern });
      if (outcome.kind === 'compiled') return { ok: true, programSize: outcome.programSize };
      if (outcome.kind === 'invalid') return { ok: false, message: outcome.message };
      throw new Error('a grep thread answered a compile with a scan');
    },
    async scan(pattern, input) {
      const outcome = await run({ kind: 'scan', pattern, ...input });
      if (outcome.kind === 'scanned') return { files: outcome.files, bytes: outcome.bytes, work: outcome.work };
      if (outcome.kind === 'invalid') return { invalid: outcome.message };
      throw new Error('a grep thread answered a scan with a compile');
    },
    close: () => pool.close(),
  };
}
