import type { Dispatcher } from 'undici';
import { connectFailureCode, HostBreakers, type HostBreakerOptions, type HostPass } from '../../net/breaker.js';
import { coalescedLookup } from '../../net/lookup.js';
import type { RegistryGetOptions, RegistryHttp } from '../types.js';
import { RegistryTimeoutError, RegistryUnreachableError } from '../../model/registry-unreachable.js';
import { TransientAnalysisError } from '../../model/types.js';

/** A registry answered with a status that retrying will not change (401, 403, 400…). */
export class RegistryResponseError extends Error {
  readonly code = 'REGISTRY_RESPONSE';
  constructor(
    readonly status: number,
    url: string,
  ) {
    super(`registry answered ${status} for ${new URL(url).pathname}`);
    this.name = 'RegistryResponseError';
  }
}

export interface RegistryHttpOptions {
  /** Whole-request deadline (connect, headers and body). */
  readonly timeoutMs?: number;
  /** Largest response body read; a larger one is a failure, never a buffer that grows without end. */
  readonly maxBytes?: number;
  /** Attempts after the first for transient failures. */
  readonly retries?: number;
  readonly dispatcher?: Dispatcher;
  readonly userAgent?: string;
  /** Certificate authorities to trust instead of Node's (npm's `ca` setting). */
  readonly ca?: string | readonly string[] | null;
  /** Sockets per registry host (32): at least the requests the caller lets run at once. */
  readonly connections?: number;
  /**
   * The per-host circuit breakers (share one between clients of the same registries), or their
   * settings for breakers of this client's own; null: none (every request tries to connect).
   */
  readonly breakers?: HostBreakers | HostBreakerOptions | null;
}

const DEFAULTS = { timeoutMs: 20_000, maxBytes: 32 * 1024 * 1024, retries: 1 } as const;

/** Connection failures that took the whole connect timeout to happen. */
const SLOW_CONNECT_FAILURES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_SOCKET']);

/** Why an exchange was stopped before its response ended. */
class DeadlinePassed extends Error {}

/** A URL's origin (no path, no credentials), or null when it is no URL. */
function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * One GET as an undici dispatch handler: the body is gathered from the chunks as they come, with
 * the size limit applied to each, and the outcome decided at the end. A registry answers thousands
 * of small documents in a run (a cold CLI run asks one per package): `request()` made a Node
 * stream, an async iterator and two abort signals for each, which cost about a third of a cold
 * run's CPU on this path; a handler and one timer cost a fraction of that.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private stopped: Error | null = null;
  private status = 0;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private timer: NodeJS.Timeout | undefined;
  private settled = false;
  private readonly onAbort = (): void => this.stop(this.signal?.reason instanceof Error ? this.signal.reason : new Error('aborted'));

  constructor(
    private readonly url: string,
    private readonly maxBytes: number,
    private readonly resolve: (body: string | null) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: AbortSignal | undefined,
    private readonly pass: HostPass | null,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The whole exchange (connection, headers and body) within `ms`. */
  deadline(ms: number): void {
    this.timer = setTimeout(() => this.stop(new DeadlinePassed()), ms);
    this.timer.unref();
  }

  /** Ends the exchange now with `reason`: a request still queued for a socket is aborted when it starts. */
  stop(reason: Error): void {
    if (this.settled) return;
    this.stopped = reason;
    this.controller?.abort(reason);
    this.fail(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.stopped !== null) controller.abort(this.stopped);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
    if (!this.settled) this.pass?.reached();
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return this.stop(new RegistryResponseError(413, this.url));
    // Only a document is kept; an error page is read to its end (the socket stays usable) and dropped.
    if (this.status >= 200 && this.status < 300) this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const status = this.status;
    if (status === 404 || status === 410) this.succeed(null);
    else if (status >= 500 || status === 429) this.fail(new TransientAnalysisError(`registry answered ${status}`));
    else if (status < 200 || status >= 300) this.fail(new RegistryResponseError(status, this.url));
    else this.succeed(this.chunks.length === 1 ? (this.chunks[0] as Buffer).toString('utf8') : Buffer.concat(this.chunks).toString('utf8'));
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    if (this.settled) return;
    if (this.stopped !== null) return this.fail(this.stopped);
    // A connection never made: the breaker counts it, and the analysis degrades on it rather than retrying.
    const unreachable = connectFailureCode(error);
    const origin = unreachable === null ? null : originOf(this.url);
    if (unreachable !== null && origin !== null) {
      return this.fail(this.pass?.unreachable(unreachable, error) ?? new RegistryUnreachableError(origin, unreachable, false, { cause: error }));
    }
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && TRANSIENT_CODES.has(code)) this.fail(new TransientAnalysisError('registry could not be reached', { cause: error }));
    else this.fail(new TransientAnalysisError('registry request failed', { cause: error }));
  }

  private succeed(body: string | null): void {
    if (this.settle()) this.resolve(body);
  }

  private fail(error: Error): void {
    if (!this.settle()) return;
    this.reject(error instanceof DeadlinePassed ? new RegistryTimeoutError({ cause: error }) : error);
  }

  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
    this.pass?.leave();
    return true;
  }
}

export interface ClosableRegistryHttp extends RegistryHttp {
  /** Closes the connections once the requests in flight have ended. */
  close(): Promise<void>;
  /** Closes the connections now, failing the requests in flight. */
  destroy(): Promise<void>;
}

/**
 * The registries' HTTP client (undici, one keep-alive agent per process). Registries of every
 * ecosystem but npm go through it; npm keeps npm's own fetch with the user's npm configuration.
 */
export function registryHttp(options: RegistryHttpOptions = {}): ClosableRegistryHttp {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
  const retries = options.retries ?? DEFAULTS.retries;
  const userAgent = options.userAgent ?? 'pkgscope';
  const breakers = options.breakers === null ? null : options.breakers instanceof HostBreakers ? options.breakers : new HostBreakers(options.breakers);
  // undici is loaded with the first request: an analysis that reaches no registry (a warm cache,
  // the CLI's --offline, npm alone) starts without it.
  let client: Promise<{ readonly agent: Dispatcher; readonly dispatcher: Dispatcher }> | undefined;
  const connect = () =>
    (client ??= import('undici').then(({ Agent, interceptors }) => {
      // One DNS lookup for the connections opening to a host at once (see coalescedLookup).
      const connect = { lookup: coalescedLookup(), ...(options.ca ? { ca: typeof options.ca === 'string' ? options.ca : [...options.ca] } : {}) };
      const agent = options.dispatcher ?? new Agent({ connections: options.connections ?? 32, keepAliveTimeout: 10_000, connectTimeout: Math.min(timeoutMs, 10_000), connect });
      // undici 7 follows redirects through an interceptor; the `maxRedirections` request option is refused.
      return { agent, dispatcher: agent.compose(interceptors.redirect({ maxRedirections: 5 })) };
    }));

  async function once(url: string, opts: RegistryGetOptions): Promise<string | null> {
    // Loading undici (the first request only) is not the registry's time.
    const { dispatcher } = await connect();
    opts.signal?.throwIfAborted();
    const headers: Record<string, string> = { accept: opts.accept ?? 'application/json', 'user-agent': userAgent };
    if (opts.authorization !== undefined) headers['authorization'] = opts.authorization;
    // A host whose breaker is open fails here, before any connection is tried.
    const origin = breakers === null ? null : originOf(url);
    let exchange: Exchange | null = null;
    let stopped: Error | null = null;
    const stop = (reason: Error): void => (exchange === null ? void (stopped = reason) : exchange.stop(reason));
    const pass = origin === null || breakers === null ? null : await breakers.enter(origin, stop, opts.signal);
    return new Promise<string | null>((resolve, reject) => {
      exchange = new Exchange(url, maxBytes, resolve, reject, opts.signal, pass);
      // The breaker opened between letting this request go and its start.
      if (stopped !== null) return exchange.stop(stopped);
      exchange.deadline(timeoutMs);
      try {
        const target = new URL(url);
        dispatcher.dispatch({ origin: target.origin, path: `${target.pathname}${target.search}`, method: 'GET', headers }, exchange);
      } catch (error) {
        // An address undici refuses (or no address at all) fails like any other request that could not go out.
        exchange.onResponseError(null, error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  async function text(url: string, opts: RegistryGetOptions = {}): Promise<string | null> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once(url, opts);
      } catch (error) {
        if (!(error instanceof TransientAnalysisError) || attempt >= retries) throw error;
        // A connection refused or not resolved may be tried again (its breaker decides how often);
        // a connect timeout would spend its whole wait again, and an open breaker answers the same.
        if (error instanceof RegistryUnreachableError && (error.withoutRequest || SLOW_CONNECT_FAILURES.has(error.reason))) throw error;
        opts.signal?.throwIfAborted();
      }
    }
  }

  return {
    text,
    async json(url, opts = {}) {
      const body = await text(url, opts);
      if (body === null) return null;
      try {
        return JSON.parse(body) as unknown;
      } catch {
        throw new RegistryResponseError(502, url);
      }
    },
    async close() {
      if (options.dispatcher === undefined && client !== undefined) await (await client).agent.close();
    },
    async destroy() {
      // Requests still in flight (a lookup nobody waits for any more) end now instead of being awaited.
      if (options.dispatcher === undefined && client !== undefined) await (await client).agent.destroy();
    },
  };
}
