import type { JobSnapshot } from './snapshot.js';

interface Waiter {
  resolve(snapshot: JobSnapshot | null): void;
  reject(error: unknown): void;
}

/**
 * Snapshot re-reads of event streams, gathered into one query per window. A stream that heard
 * nothing during a heartbeat interval reads its job again (a publish may have been lost), and so
 * does every stream when Redis comes back: 5,000 quiet streams asked Postgres 2,500 times a second,
 * one job each, a fifth of the API's CPU while streams were being opened. Reads asked within
 * `windowMs` (or `maxBatch` of them) go out as one query; a stream's read is an interval late at
 * most anyway, so the wait is harmless.
 */
export class SnapshotReads {
  private waiting = new Map<string, Waiter[]>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly find: (ids: readonly string[]) => Promise<ReadonlyMap<string, JobSnapshot>>,
    private readonly windowMs = 25,
    private readonly maxBatch = 1_000,
  ) {}

  /** The job's current snapshot, or null when it is gone (expired or deleted). */
  read(id: string): Promise<JobSnapshot | null> {
    return new Promise<JobSnapshot | null>((resolve, reject) => {
      const waiters = this.waiting.get(id);
      if (waiters === undefined) this.waiting.set(id, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
      if (this.waiting.size >= this.maxBatch) this.flush();
      else if (this.timer === null) {
        this.timer = setTimeout(() => this.flush(), this.windowMs);
        this.timer.unref();
      }
    });
  }

  private flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.waiting;
    this.waiting = new Map();
    if (batch.size === 0) return;
    this.find([...batch.keys()]).then(
      (found) => {
        for (const [id, waiters] of batch) for (const w of waiters) w.resolve(found.get(id) ?? null);
      },
      (error: unknown) => {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
      },
    );
  }
}
