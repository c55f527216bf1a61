import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, type Transferable } from 'node:worker_threads';
import { Piscina } from 'piscina';

/**
 * A bounded pool of worker threads (piscina) where every run has a wall-clock budget and a heap
 * limit. A run over its budget is aborted, which makes piscina terminate its thread and start a
 * fresh one; a run over its heap dies alone with ERR_WORKER_OUT_OF_MEMORY. Either way the caller
 * gets a BudgetExceeded and nothing else in the process notices.
 *
 * The budget counts only the time the thread works: while it waits for the main thread (a
 * registry call it asked for over the run's port), the clock is paused. Time spent queued for a
 * free thread does not count either.
 */

export interface BudgetPoolOptions {
  /** The worker module (its default export runs one task). */
  readonly worker: URL;
  readonly name: string;
  readonly maxThreads: number;
  /** Runs waiting for a thread beyond this are refused with PoolSaturated. */
  readonly maxQueue: number;
  readonly budgetMs: number;
  readonly maxHeapMb: number;
}

export type BudgetKind = 'time' | 'memory';

/** Answers a worker on its run's port; what `transfer` lists moves to the worker rather than being copied. */
export type Reply = (answer: unknown, transfer?: readonly Transferable[]) => void;

/** A run went over its time budget or its heap limit; its thread was replaced. */
export class BudgetExceeded extends Error {
  constructor(
    readonly kind: BudgetKind,
    readonly limit: number,
  ) {
    super(kind === 'time' ? `the run exceeded its ${limit} ms budget` : `the run exceeded its ${limit} MB heap`);
    this.name = 'BudgetExceeded';
  }
}

/** Every thread is busy and the queue is full. */
export class PoolSaturated extends Error {
  constructor(name: string) {
    super(`the ${name} pool is saturated`);
    this.name = 'PoolSaturated';
  }
}

/** What a worker module sends on its port to steer the budget clock. */
export type ClockMessage = { readonly type: 'clock'; readonly running: boolean };

/** Starts or pauses the clock of the run that owns `port` (called in the worker). */
export function clock(port: MessagePort, running: boolean): void {
  const message: ClockMessage = { type: 'clock', running };
  port.postMessage(message);
}

/**
 * The URL of thread entry `name` of this folder: its `.ts` source where this module runs from
 * source (vitest, tsx), else the compiled `.js` (the CLI bundler rewrites import.meta.url to
 * this module's original file, so the entry is found beside it in dist/ as well).
 */
export function workerUrl(name: string): URL {
  return new URL(`./${name}${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
}

/**
 * Source checkouts run TypeScript directly (vitest, tsx): their worker threads need tsx's
 * loader, registered through execArgv. Built code (dist) loads the compiled `.js` worker as is.
 */
function workerFile(url: URL): { filename: string; execArgv: string[] } {
  const filename = fileURLToPath(url);
  if (!filename.endsWith('.ts')) return { filename, execArgv: [] };
  return { filename, execArgv: ['--import', 'tsx'] };
}

/** The clock of one run: it ticks while the worker works and stops while it waits on us. */
class RunClock {
  private spent = 0;
  private since: number | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly budgetMs: number,
    private readonly expire: () => void,
  ) {}

  set(running: boolean): void {
    if (running && this.since === null) {
      this.since = performance.now();
      this.timer = setTimeout(this.expire, Math.max(0, this.budgetMs - this.spent));
    } else if (!running && this.since !== null) {
      this.spent += performance.now() - this.since;
      this.since = null;
      clearTimeout(this.timer);
    }
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

export class BudgetPool<Task extends object, Result> {
  private piscina: Piscina<Task & { port: MessagePort }, Result> | null = null;
  /** Runs running or waiting for a thread. */
  private inFlight = 0;

  constructor(private readonly options: BudgetPoolOptions) {}

  /** Threads start with the first run: a process that never analyses (or fails to start) holds none. */
  private get pool(): Piscina<Task & { port: MessagePort }, Result> {
    this.piscina ??= this.start();
    return this.piscina;
  }

  private start(): Piscina<Task & { port: MessagePort }, Result> {
    const { filename, execArgv } = workerFile(this.options.worker);
    const options = this.options;
    return new Piscina({
      filename,
      execArgv,
      name: 'default',
      // Every thread kept (and a terminated one replaced at once): no run waits for a cold start.
      minThreads: options.maxThreads,
      maxThreads: options.maxThreads,
      maxQueue: options.maxQueue + options.maxThreads,
      idleTimeout: 30_000,
      // A thread waits for its next task with Atomics.waitAsync, its event loop running: with
      // piscina's default (a blocking Atomics.wait), a thread kept busy by runs that await nothing
      // but promises (a lockfile its memo answers) never turned its loop, so it never finished
      // closing each run's port, and the port's listener kept the run's task and its files: the
      // heap grew by each upload (19 KB per run of an 83-entry lockfile) until the heap limit
      // failed a run.
      atomics: 'async',
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
    });
  }

  /**
   * Runs one task. `onMessage` receives what the worker posts on the run's port besides clock
   * messages; `reply` lets the caller answer on that port, and `clock` lets it pause the run's
   * budget while it works on the worker's behalf (the worker then need not post clock messages
   * around each call: every message costs a wake-up of the other thread). `signal` aborts the
   * run (and its thread).
   */
  async run(
    task: Task,
    handlers: { onMessage?: (message: unknown, reply: Reply, clock: (running: boolean) => void) => void; signal?: AbortSignal },
  ): Promise<Result> {
    // Counted here rather than by piscina, whose refusal carries no code to tell it apart.
    if (this.inFlight >= this.options.maxThreads + this.options.maxQueue) throw new PoolSaturated(this.options.name);
    this.inFlight++;
    const { port1, port2 } = new MessageChannel();
    const abort = new AbortController();
    // Made only when the budget runs out: an error's stack costs more than the rest of a small run's bookkeeping.
    const runClock = new RunClock(this.options.budgetMs, () => abort.abort(new BudgetExceeded('time', this.options.budgetMs)));
    // The run's own promise keeps the process alive while it matters; its port must not on its own.
    port1.unref();
    const reply: Reply = (answer, transfer) => port1.postMessage(answer, transfer);
    const setClock = (running: boolean): void => runClock.set(running);
    port1.on('message', (message: unknown) => {
      if (isClock(message)) runClock.set(message.running);
      else handlers.onMessage?.(message, reply, setClock);
    });
    const outer = handlers.signal;
    const forward = (): void => abort.abort(outer?.reason);
    if (outer?.aborted === true) forward();
    outer?.addEventListener('abort', forward, { once: true });
    try {
      return await this.pool.run({ ...task, port: port2 }, { transferList: [port2], signal: abort.signal });
    } catch (error) {
      // Only the clock aborts this controller with a BudgetExceeded.
      const reason: unknown = abort.signal.reason;
      if (reason instanceof BudgetExceeded) throw reason;
      if (outer?.aborted === true) throw outer.reason instanceof Error ? outer.reason : new Error('aborted', { cause: error });
      if ((error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY') throw new BudgetExceeded('memory', this.options.maxHeapMb);
      throw error;
    } finally {
      this.inFlight--;
      runClock.stop();
      outer?.removeEventListener('abort', forward);
      port1.close();
    }
  }

  async close(): Promise<void> {
    const pool = this.piscina;
    this.piscina = null;
    await pool?.close({ force: true });
  }
}

function isClock(message: unknown): message is ClockMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'clock';
}
