import type { JobSnapshot } from '../../src/jobs/snapshot.js';

export interface SseEvent {
  readonly event: string;
  readonly id: string;
  readonly data: string;
}

/**
 * An SSE client over fetch streaming (what a browser does when it must send a bearer token).
 * Events are collected; `next` awaits the next one; `ended` resolves when the server closes.
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  status = 0;
  headers: Headers | null = null;
  readonly ended: Promise<void>;
  private readonly controller = new AbortController();
  private waiters: { index: number; resolve: (e: SseEvent) => void; reject: (e: Error) => void }[] = [];
  private commentWaiters: (() => void)[] = [];
  private done = false;

  constructor(url: string, token: string) {
    this.ended = this.run(url, token);
    // A stream the server cuts (a process stopped, a harness closed) rejects `ended`; a test that
    // awaits it still sees why, but one that never awaits it must not end the run with an
    // unhandled rejection (vitest fails the whole run for one, naming no test).
    this.ended.catch(() => undefined);
  }

  private async run(url: string, token: string): Promise<void> {
    try {
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: this.controller.signal });
      this.status = res.status;
      this.headers = res.headers;
      if (!res.body) return;
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          this.parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch (error) {
      if (!this.controller.signal.aborted) throw error;
    } finally {
      this.done = true;
      for (const w of this.waiters) w.reject(new Error('stream ended'));
      this.waiters = [];
    }
  }

  private parse(block: string): void {
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line.slice(1).trim());
        for (const resolve of this.commentWaiters.splice(0)) resolve();
        continue;
      }
      const colon = line.indexOf(':');
      const name = line.slice(0, colon);
      fields[name] = (fields[name] === undefined ? '' : `${fields[name]}\n`) + line.slice(colon + 1).replace(/^ /, '');
    }
    if (fields['data'] === undefined) return;
    const event = { event: fields['event'] ?? 'message', id: fields['id'] ?? '', data: fields['data'] };
    this.events.push(event);
    this.waiters = this.waiters.filter((w) => {
      if (w.index >= this.events.length) return true;
      w.resolve(this.events[w.index]!);
      return false;
    });
  }

  /** The event at `index` (0-based), now or when it arrives. */
  event(index: number): Promise<SseEvent> {
    const existing = this.events[index];
    if (existing) return Promise.resolve(existing);
    if (this.done) return Promise.reject(new Error('stream ended'));
    return new Promise((resolve, reject) => this.waiters.push({ index, resolve, reject }));
  }

  snapshots(): JobSnapshot[] {
    return this.events.filter((e) => e.event === 'snapshot').map((e) => JSON.parse(e.data) as JobSnapshot);
  }

  /** Resolves with the first snapshot (seen or future) matching the predicate. */
  async waitFor(match: (s: JobSnapshot) => boolean): Promise<JobSnapshot> {
    for (let i = 0; ; i++) {
      const snapshot = JSON.parse((await this.event(i)).data) as JobSnapshot;
      if (match(snapshot)) return snapshot;
    }
  }

  /** Resolves when the next comment (heartbeat) arrives. */
  nextComment(): Promise<void> {
    return new Promise((resolve) => this.commentWaiters.push(resolve));
  }

  /** Whether the server (or `close`) ended the stream. */
  isDone(): boolean {
    return this.done;
  }

  close(): void {
    this.controller.abort();
  }
}
