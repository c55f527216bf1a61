import type { Dispatcher, request as undiciRequest } from 'undici';
import type { RegistryGetOptions, RegistryHttp } from '../sbom/ecosystems/types.js';
import { TransientAnalysisError } from '../sbom/types.js';

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
}

const DEFAULTS = { timeoutMs: 20_000, maxBytes: 32 * 1024 * 1024, retries: 1 } as const;

const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_SOCKET']);

/**
 * The registries' HTTP client (undici, one keep-alive agent per process). Registries of every
 * ecosystem but npm go through it; npm keeps npm's own fetch with the user's npm configuration.
 */
export function registryHttp(options: RegistryHttpOptions = {}): RegistryHttp & { close(): Promise<void> } {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
  const retries = options.retries ?? DEFAULTS.retries;
  const userAgent = options.userAgent ?? 'pkgscope';
  // undici is loaded with the first request: an analysis that reaches no registry (a warm cache,
  // the CLI's --offline, npm alone) starts without it.
  let client: Promise<{ readonly agent: Dispatcher; readonly dispatcher: Dispatcher; readonly request: typeof undiciRequest }> | undefined;
  const connect = () =>
    (client ??= import('undici').then(({ Agent, interceptors, request }) => {
      const connect = options.ca ? { ca: typeof options.ca === 'string' ? options.ca : [...options.ca] } : {};
      const agent = options.dispatcher ?? new Agent({ connections: options.connections ?? 32, keepAliveTimeout: 10_000, connectTimeout: Math.min(timeoutMs, 10_000), connect });
      // undici 7 follows redirects through an interceptor; the `maxRedirections` request option is refused.
      return { agent, dispatcher: agent.compose(interceptors.redirect({ maxRedirections: 5 })), request };
    }));

  async function once(url: string, opts: RegistryGetOptions): Promise<string | null> {
    // Loading undici (the first request only) is not the registry's time.
    const { dispatcher, request } = await connect();
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
    try {
      const response = await request(url, {
        method: 'GET',
        dispatcher,
        signal,
        headers: { accept: opts.accept ?? 'application/json', 'user-agent': userAgent, ...(opts.authorization === undefined ? {} : { authorization: opts.authorization }) },
      });
      const { statusCode, body } = response;
      if (statusCode === 404 || statusCode === 410) {
        await body.dump();
        return null;
      }
      if (statusCode >= 500 || statusCode === 429) {
        await body.dump();
        throw new TransientAnalysisError(`registry answered ${statusCode}`);
      }
      if (statusCode < 200 || statusCode >= 300) {
        await body.dump();
        throw new RegistryResponseError(statusCode, url);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) {
          body.destroy();
          throw new RegistryResponseError(413, url);
        }
        chunks.push(chunk);
      }
      return Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      if (error instanceof TransientAnalysisError || error instanceof RegistryResponseError) throw error;
      opts.signal?.throwIfAborted();
      const code = (error as { code?: unknown } | null)?.code;
      if (deadline.aborted || (typeof code === 'string' && TRANSIENT_CODES.has(code))) {
        throw new TransientAnalysisError(deadline.aborted ? 'registry did not answer in time' : 'registry could not be reached', { cause: error });
      }
      throw new TransientAnalysisError('registry request failed', { cause: error });
    }
  }

  async function text(url: string, opts: RegistryGetOptions = {}): Promise<string | null> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once(url, opts);
      } catch (error) {
        if (!(error instanceof TransientAnalysisError) || attempt >= retries) throw error;
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
  };
}
