import { JOBS_PATH, type JobSnapshot } from '../../../src/jobs/snapshot.js';
import { asProblem, Problem, problemFrom } from '../api/client.js';
import { eventStreamParser } from './event-stream.js';

/** Heartbeats come every 15 s; a connection silent for longer is dead even if no error says so. */
const STALL_MS = 45_000;
const MAX_FAILURES = 6;

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'stopped' | 'closed';

export interface FollowerEvents {
  snapshot(snapshot: JobSnapshot): void;
  connection(state: ConnectionState, detail: string | null): void;
  /** A failure that stopped following; `retryable` offers a manual reconnect. */
  problem(problem: Problem, retryable: boolean): void;
}

export function jobUrl(id: string, suffix = ''): string {
  return `${JOBS_PATH}/${encodeURIComponent(id)}${suffix}`;
}

function isSnapshot(value: unknown, id: string): value is JobSnapshot {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v['id'] === id && typeof v['revision'] === 'number' && typeof v['state'] === 'string' && typeof v['phase'] === 'string';
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/**
 * Follows a job's events stream (fetch, since EventSource cannot send a bearer token) until a
 * terminal snapshot, reconnecting with Last-Event-ID when a stream ends early. Every snapshot is
 * applied unless older than one already applied (revisions never decrease).
 */
export class JobFollower {
  private readonly controller = new AbortController();
  private lastEventId = '';
  private retryMs = 1000;
  private revision = -1;
  private terminal = false;
  private delivered = false;

  constructor(
    readonly id: string,
    private readonly token: string,
    private readonly events: FollowerEvents,
  ) {}

  apply(snapshot: JobSnapshot): void {
    if (this.controller.signal.aborted || snapshot.revision < this.revision) return;
    this.revision = snapshot.revision;
    if (snapshot.state === 'succeeded' || snapshot.state === 'failed') this.terminal = true;
    this.events.snapshot(snapshot);
  }

  /** Whether the last connection brought a snapshot (set by the stream's callbacks). */
  private wasDelivered(): boolean {
    return this.delivered;
  }

  isTerminal(): boolean {
    return this.terminal;
  }

  stop(): void {
    this.controller.abort();
  }

  private async streamOnce(): Promise<{ fatal: boolean; problem: Problem | null }> {
    const attempt = new AbortController();
    const stop = (): void => attempt.abort();
    this.controller.signal.addEventListener('abort', stop, { once: true });
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      clearTimeout(watchdog);
      watchdog = setTimeout(stop, STALL_MS);
    };
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'text/event-stream' };
    if (this.lastEventId !== '') headers['last-event-id'] = this.lastEventId;
    try {
      arm();
      this.events.connection('connecting', null);
      const response = await fetch(jobUrl(this.id, '/events'), { headers, signal: attempt.signal, cache: 'no-store', credentials: 'omit' });
      if (!response.ok) {
        const problem = await problemFrom(response);
        return { fatal: !(response.status >= 500 || response.status === 429), problem };
      }
      this.events.connection('live', null);
      const feed = eventStreamParser(this.lastEventId, {
        event: (event) => {
          if (event.type !== 'snapshot') return;
          let parsed: unknown;
          try {
            parsed = JSON.parse(event.data);
          } catch {
            return;
          }
          if (!isSnapshot(parsed, this.id)) return;
          this.delivered = true;
          this.apply(parsed);
        },
        id: (id) => (this.lastEventId = id),
        retry: (ms) => (this.retryMs = ms),
        comment: () => this.events.connection('live', `heartbeat ${new Date().toLocaleTimeString()}`),
      });
      if (response.body === null) return { fatal: false, problem: null };
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        arm();
        feed(value);
      }
      return { fatal: false, problem: null };
    } finally {
      clearTimeout(watchdog);
      this.controller.signal.removeEventListener('abort', stop);
    }
  }

  async follow(): Promise<void> {
    let failures = 0;
    const signal = this.controller.signal;
    // Read through a function: the stream's callbacks change these while this loop awaits.
    const over = (): boolean => this.terminal || signal.aborted;
    while (!over()) {
      this.delivered = false;
      let outcome: { fatal: boolean; problem: Problem | null };
      try {
        outcome = await this.streamOnce();
      } catch (error) {
        outcome = { fatal: false, problem: asProblem(error) };
      }
      if (over()) break;
      if (outcome.fatal && outcome.problem) {
        this.events.problem(outcome.problem, false);
        this.events.connection('stopped', null);
        return;
      }
      failures = this.wasDelivered() ? 0 : failures + 1;
      if (failures >= MAX_FAILURES) {
        this.events.problem(outcome.problem ?? new Problem({ title: 'Event stream lost', detail: 'The stream kept ending without news.', code: null }), true);
        this.events.connection('stopped', null);
        return;
      }
      const delay = Math.min(this.retryMs * 2 ** failures, 30_000);
      this.events.connection('reconnecting', `in ${(delay / 1000).toFixed(1)} s`);
      await sleep(delay, signal);
    }
    if (!signal.aborted) this.events.connection(this.isTerminal() ? 'closed' : 'stopped', null);
  }
}
