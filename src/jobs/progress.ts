import type { ProgressCounts } from '../model/types.js';
import type { JobPhase, JobSnapshot } from './snapshot.js';

export type ProgressWrite = (phase: JobPhase, counts: ProgressCounts) => Promise<JobSnapshot | null>;

/**
 * Turns a stream of progress reports into throttled, ordered snapshot writes: at most one write
 * per interval, the latest report winning, a phase change included (it is written at once when
 * the last write is older than the interval). A short job thus writes no intermediate snapshot
 * at all: its phases pass within the interval that began with the claim, and `close` drops what
 * is still waiting because the terminal snapshot follows (the phases of a long job still show,
 * an interval late at most). A write that finds the job fenced out (another attempt took over)
 * or fails stops the writer and fires `onStop`.
 */
export class ProgressWriter {
  private phase: JobPhase | null = null;
  private latest: { phase: JobPhase; counts: ProgressCounts } | null = null;
  private lastWrite = 0;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private stopped = false;

  constructor(
    private readonly write: ProgressWrite,
    private readonly intervalMs: number,
    /** Called once when writing stops early: fenced out (`error` undefined) or a failed write. */
    private readonly onStop: (error?: unknown) => void,
    private readonly now: () => number = Date.now,
    /** The phase the claim already wrote, and when: the interval runs from that write. */
    written: { readonly phase: JobPhase; readonly at: number } | null = null,
  ) {
    if (written !== null) {
      this.phase = written.phase;
      this.lastWrite = written.at;
    }
  }

  report(phase: JobPhase, counts: ProgressCounts): void {
    if (this.stopped) return;
    this.latest = { phase, counts };
    if (phase !== this.phase) {
      this.phase = phase;
      if (this.now() - this.lastWrite >= this.intervalMs) {
        this.flush();
        return;
      }
    }
    if (this.timer !== null) return;
    const wait = Math.max(0, this.lastWrite + this.intervalMs - this.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
  }

  private flush(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const pending = this.latest;
    this.latest = null;
    if (pending === null || this.stopped) return;
    this.lastWrite = this.now();
    this.chain = this.chain.then(async () => {
      if (this.stopped) return;
      try {
        const written = await this.write(pending.phase, pending.counts);
        if (written === null) this.stop();
      } catch (error) {
        this.failure = error;
        this.stop(error);
      }
    });
  }

  private stop(error?: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.onStop(error);
  }

  /**
   * Drops a throttled count update not yet due, waits for the writes already started (every
   * phase change among them), and rethrows a write failure.
   */
  async close(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.latest = null;
    await this.chain;
    this.stopped = true;
    if (this.failure !== null) throw this.failure instanceof Error ? this.failure : new Error('progress write failed', { cause: this.failure });
  }
}
