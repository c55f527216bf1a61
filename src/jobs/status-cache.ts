import type { Logger } from '../logger.js';
import { isStoreUnavailable } from '../store-errors.js';
import { jobChannel, type EventHub } from './events.js';
import type { JobSnapshot } from './snapshot.js';

export interface StatusCacheOptions {
  readonly hub: EventHub;
  readonly prefix: string;
  readonly logger: Logger;
  /**
   * How long a snapshot read from Postgres is trusted while published snapshots keep it current
   * (JOB_STATUS_FRESH_MS); 0 turns the cache off.
   */
  readonly freshMs: number;
  /** A job not polled for this long is forgotten (and its channel left). */
  readonly idleMs?: number;
  /** Jobs kept at most; beyond, polls read Postgres as without the cache. */
  readonly maxJobs?: number;
  /** How long an account that polled is expected to poll its next jobs too (see `track`). */
  readonly pollerMemoryMs?: number;
  readonly now?: () => number;
}

interface Entry {
  readonly accountId: string;
  /** The newest snapshot heard of: read from Postgres or published since. */
  snapshot: JobSnapshot | null;
  /** Whether Postgres found the job for this account: only then is the snapshot served. */
  owned: boolean;
  /** When Postgres last confirmed the snapshot (-Infinity: re-read on the next poll). */
  readAt: number;
  usedAt: number;
  /** Settles once Redis confirmed the subscription (true) or could not (false). */
  readonly subscribed: Promise<boolean>;
  /** The read in flight, shared by the polls that arrive while it runs. */
  loading: Promise<JobSnapshot | null> | null;
  leave: () => void;
}

/**
 * Job status polls answered from memory. A client polling a running job every 20 ms would cost
 * a Postgres read per poll; here the first poll of a job subscribes to the job's event channel
 * (confirmed by Redis), then reads Postgres, and later polls get that snapshot as the published
 * snapshots keep it current (a newer revision replaces it). A job submitted through this process
 * by an account that polls here is kept from its submission (`track`), its first poll included.
 * Publishing is best effort (a worker can die between its commit and its publish), so Postgres is
 * read again whenever the last read is older than `freshMs`: a lost message delays what a poll
 * sees by at most that long, and every other change reaches the poll as soon as it reaches this
 * process's event streams.
 *
 * Redis reconnecting (messages may have been lost) makes every job re-read on its next poll; a
 * subscription Redis cannot confirm, or a full cache, leaves the poll reading Postgres as before.
 * Entries belong to the account that read them: another account's poll goes to Postgres (which
 * answers not found).
 */
export class JobStatusCache {
  private readonly entries = new Map<string, Entry>();
  /** When each account last polled through this process, oldest first (at most `maxJobs` accounts). */
  private readonly pollers = new Map<string, number>();
  private readonly idleMs: number;
  private readonly maxJobs: number;
  private readonly pollerMemoryMs: number;
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly options: StatusCacheOptions) {
    this.idleMs = options.idleMs ?? 10_000;
    this.maxJobs = options.maxJobs ?? 10_000;
    this.now = options.now ?? Date.now;
    this.pollerMemoryMs = options.pollerMemoryMs ?? 60_000;
  }

  /** The job's current snapshot for its owner; `read` is the Postgres read (null: not found). */
  async get(id: string, accountId: string, read: () => Promise<JobSnapshot | null>): Promise<JobSnapshot | null> {
    if (this.options.freshMs === 0) return read();
    this.pollers.delete(accountId);
    this.pollers.set(accountId, this.now());
    if (this.pollers.size > this.maxJobs) this.pollers.delete(this.pollers.keys().next().value ?? accountId);
    let entry = this.entries.get(id);
    if (entry === undefined) {
      if (this.entries.size >= this.maxJobs) return read();
      entry = this.join(id, accountId);
    }
    if (entry.accountId !== accountId || !(await entry.subscribed)) return read();
    const now = this.now();
    entry.usedAt = now;
    const { snapshot } = entry;
    if (entry.owned && snapshot !== null && now - entry.readAt < this.options.freshMs && Date.parse(snapshot.expires_at) > now) return snapshot;
    return this.reload(entry, read);
  }

  /**
   * Keeps the snapshot of a job this process just created for its owner, so that even the first
   * poll needs no Postgres read (a client submitting and then polling costs Postgres nothing
   * but the insert). Only an account that polled through this process within `pollerMemoryMs`
   * is expected to poll again: the jobs of one that follows its jobs otherwise (event streams,
   * another API process) are not tracked, and cost no subscription. Resolves once Redis
   * confirmed the job's channel: the caller queues the job only then, so every snapshot
   * published for it reaches the entry. Without a confirmation (the cache off or full, Redis
   * away) nothing is kept, and polls read Postgres as before.
   */
  async track(snapshot: JobSnapshot, accountId: string): Promise<void> {
    if (this.options.freshMs === 0 || this.entries.has(snapshot.id) || this.entries.size >= this.maxJobs) return;
    const trackedAt = this.now();
    const polledAt = this.pollers.get(accountId);
    if (polledAt === undefined || trackedAt - polledAt > this.pollerMemoryMs) return;
    const entry = this.join(snapshot.id, accountId);
    if (!(await entry.subscribed)) return;
    if (entry.snapshot === null || snapshot.revision >= entry.snapshot.revision) entry.snapshot = snapshot;
    entry.owned = true;
    entry.readAt = trackedAt;
  }

  /** Number of jobs whose status is kept. */
  get size(): number {
    return this.entries.size;
  }

  close(): void {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
    for (const entry of this.entries.values()) entry.leave();
    this.entries.clear();
  }

  /** Subscribes to the job's channel; the entry's `subscribed` says whether Redis confirmed it. */
  private join(id: string, accountId: string): Entry {
    const subscribed = this.options.hub
      .subscribe(jobChannel(this.options.prefix, id), {
        onMessage: (message) => this.receive(entry, message),
        onResync: () => {
          entry.readAt = -Infinity;
        },
        onClose: () => this.forget(id, entry),
      })
      .then(
        (unsubscribe) => {
          entry.leave = unsubscribe;
          // Forgotten while Redis confirmed (the cache closed): leave at once.
          if (this.entries.get(id) !== entry) unsubscribe();
          return true;
        },
        (error: unknown) => {
          this.forget(id, entry);
          if (!isStoreUnavailable(error)) this.options.logger.warn({ err: error, jobId: id }, 'job status subscription failed');
          return false;
        },
      );
    const entry: Entry = { accountId, snapshot: null, owned: false, readAt: -Infinity, usedAt: this.now(), subscribed, loading: null, leave: () => undefined };
    this.entries.set(id, entry);
    this.sweep();
    return entry;
  }

  private reload(entry: Entry, read: () => Promise<JobSnapshot | null>): Promise<JobSnapshot | null> {
    if (entry.loading !== null) return entry.loading;
    const startedAt = this.now();
    const loading = read().then(
      (snapshot) => {
        entry.loading = null;
        entry.readAt = startedAt;
        entry.owned = snapshot !== null;
        if (snapshot === null) return null;
        // A message may have brought a newer revision while the read was out.
        if (entry.snapshot === null || snapshot.revision >= entry.snapshot.revision) entry.snapshot = snapshot;
        return entry.snapshot;
      },
      (error: unknown) => {
        entry.loading = null;
        throw error;
      },
    );
    entry.loading = loading;
    return loading;
  }

  private receive(entry: Entry, message: string): void {
    let snapshot: JobSnapshot;
    try {
      snapshot = JSON.parse(message) as JobSnapshot;
    } catch {
      entry.readAt = -Infinity;
      return;
    }
    if (entry.snapshot === null || snapshot.revision > entry.snapshot.revision) entry.snapshot = snapshot;
  }

  private forget(id: string, entry: Entry): void {
    if (this.entries.get(id) === entry) this.entries.delete(id);
    entry.leave();
  }

  /** Forgets the jobs nobody polled for `idleMs`, leaving their channels (a timer calls it). */
  forgetIdle(): void {
    const cutoff = this.now() - this.idleMs;
    for (const [id, entry] of this.entries) if (entry.usedAt < cutoff && entry.loading === null) this.forget(id, entry);
  }

  /** Runs `forgetIdle` while jobs are kept, on a timer that never holds the process open. */
  private sweep(): void {
    if (this.sweeper !== null) return;
    this.sweeper = setInterval(() => {
      this.forgetIdle();
      if (this.entries.size === 0 && this.sweeper !== null) {
        clearInterval(this.sweeper);
        this.sweeper = null;
      }
    }, Math.max(1_000, this.idleMs / 2));
    this.sweeper.unref();
  }
}
