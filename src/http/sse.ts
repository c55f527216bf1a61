import type { ServerResponse } from 'node:http';

/**
 * A Server-Sent Events response on a hijacked reply. Frames are "latest wins": while the client
 * is slow (the socket buffer is full) only the newest pending frame is kept, so a slow client
 * costs one frame of memory and never holds up other streams. A final frame is always delivered
 * before the stream ends.
 */
export class SseWriter {
  private pending: string | null = null;
  private endAfterPending = false;
  private ended = false;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly closeCallbacks: (() => void)[] = [];
  private readonly heartbeatCallbacks: (() => void)[] = [];

  constructor(
    private readonly res: ServerResponse,
    headers: Readonly<Record<string, string>>,
    heartbeatMs: number,
  ) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...headers,
    });
    res.flushHeaders();
    res.on('drain', () => this.flushPending());
    res.on('close', () => this.finish());
    this.heartbeat = setInterval(() => {
      if (!res.writableNeedDrain) res.write(': heartbeat\n\n');
      for (const callback of this.heartbeatCallbacks) callback();
    }, heartbeatMs);
  }

  static frame(event: string, id: string, data: string): string {
    return `event: ${event}\nid: ${id}\ndata: ${data}\n\n`;
  }

  /** Sends a frame, or keeps it as the one pending frame; `final` ends the stream after it. */
  send(frame: string, final = false): void {
    if (this.ended) return;
    if (this.res.writableNeedDrain) {
      this.pending = frame;
      this.endAfterPending ||= final;
      return;
    }
    this.res.write(frame);
    if (final) this.end();
  }

  private flushPending(): void {
    const frame = this.pending;
    if (frame === null || this.ended) return;
    this.pending = null;
    this.res.write(frame);
    if (this.endAfterPending) this.end();
  }

  /** Runs `callback` at every heartbeat (streams use it to re-read the truth when quiet). */
  onHeartbeat(callback: () => void): void {
    this.heartbeatCallbacks.push(callback);
  }

  onClose(callback: () => void): void {
    if (this.ended) callback();
    else this.closeCallbacks.push(callback);
  }

  end(): void {
    if (this.ended) return;
    this.res.end();
    this.finish();
  }

  private finish(): void {
    if (this.ended && this.closeCallbacks.length === 0) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    for (const callback of this.closeCallbacks.splice(0)) callback();
  }
}
