import pLimit, { type LimitFunction } from 'p-limit';
import { Agent, request, type Dispatcher } from 'undici';
import { BlockedAddress, literalAllowed, policyLookup } from '../../net/address-policy.js';

export { addressPolicy, BlockedAddress, isPublicAddress } from '../../net/address-policy.js';

/**
 * Server-side fetching of documentation pages, SSRF-safe: only http(s); every address a host
 * resolves to must be allowed by the address policy (src/net/address-policy.ts: public unicast
 * unless private addresses are allowed), checked after DNS resolution, at connect time, so a
 * rebinding answer cannot slip through; redirects are followed by hand and each hop is checked again.
 */

export interface FetchedResource {
  readonly url: URL;
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  /** The body was larger than the limit (and was not read to the end). */
  readonly tooLarge: boolean;
}

export type FetchOutcome =
  | { readonly ok: true; readonly resource: FetchedResource }
  | {
      readonly ok: false;
      readonly reason: 'blocked' | 'redirect_loop' | 'too_many_redirects' | 'bad_redirect' | 'not_followed' | 'network' | 'timeout';
      readonly url: URL;
      readonly code?: string;
    };

export interface SiteFetcherOptions {
  /** Which resolved addresses may be connected to; public unicast only unless private ones are allowed. */
  readonly allowAddress: (address: string) => boolean;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly maxRedirects: number;
  readonly userAgent: string;
}

/** A request or body that failed: refused address, timeout or other network trouble. */
function failure(error: unknown, url: URL): FetchOutcome {
  const code = (error as { code?: unknown; cause?: { code?: unknown } }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
  if (code === 'EBLOCKED' || error instanceof BlockedAddress) return { ok: false, reason: 'blocked', url };
  const text = typeof code === 'string' ? code : 'ERROR';
  return { ok: false, reason: /TIMEOUT/.test(text) ? 'timeout' : 'network', url, code: text };
}

export class SiteFetcher {
  private readonly dispatcher: Dispatcher;

  constructor(private readonly options: SiteFetcherOptions) {
    this.dispatcher = new Agent({ connect: { lookup: policyLookup(options.allowAddress), timeout: options.timeoutMs }, connections: 8 });
  }

  private allowed(url: URL): boolean {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    // Literal addresses never reach the resolver: check them here.
    return literalAllowed(url.hostname, this.options.allowAddress);
  }

  /**
   * GETs `start`, following redirects by hand (each hop checked again; `follow` may refuse a
   * hop, e.g. one leaving the crawl's scope) and reading at most `maxBytes` of the body.
   */
  async fetch(start: URL, follow: (url: URL) => boolean = () => true, signal?: AbortSignal): Promise<FetchOutcome> {
    const accept = 'text/html,application/xhtml+xml,text/plain,text/markdown,application/xml;q=0.9,*/*;q=0.5';
    const seen = new Set<string>();
    let url = start;
    for (let hop = 0; hop <= this.options.maxRedirects; hop++) {
      if (!this.allowed(url)) return { ok: false, reason: 'blocked', url };
      if (seen.has(url.href)) return { ok: false, reason: 'redirect_loop', url };
      seen.add(url.href);
      let response: Dispatcher.ResponseData;
      try {
        response = await request(url, {
          dispatcher: this.dispatcher,
          method: 'GET',
          headers: { 'user-agent': this.options.userAgent, accept },
          headersTimeout: this.options.timeoutMs,
          bodyTimeout: this.options.timeoutMs,
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        return failure(error, url);
      }
      const location = response.headers['location'];
      if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
        await response.body.dump();
        try {
          url = new URL(location, url);
        } catch {
          return { ok: false, reason: 'bad_redirect', url };
        }
        if (!follow(url)) return { ok: false, reason: 'not_followed', url };
        continue;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let tooLarge = false;
      try {
        for await (const chunk of response.body) {
          size += (chunk as Buffer).length;
          if (size > this.options.maxBytes) {
            tooLarge = true;
            response.body.destroy();
            break;
          }
          chunks.push(chunk as Buffer);
        }
      } catch (error) {
        return failure(error, url);
      }
      const type = response.headers['content-type'];
      return {
        ok: true,
        resource: { url, status: response.statusCode, contentType: typeof type === 'string' ? type : '', body: Buffer.concat(chunks), tooLarge },
      };
    }
    return { ok: false, reason: 'too_many_redirects', url };
  }

  private closing: Promise<void> | null = null;

  /** Closes the connection pool (once, however often it is called). */
  close(): Promise<void> {
    this.closing ??= this.dispatcher.close();
    return this.closing;
  }
}

/** Per-host request slots shared by all crawls in a process (polite concurrency). */
export class HostLimiter {
  private readonly limits = new Map<string, LimitFunction>();
  constructor(private readonly concurrency: number) {}

  run<T>(host: string, work: () => Promise<T>): Promise<T> {
    let limit = this.limits.get(host);
    if (!limit) {
      limit = pLimit(this.concurrency);
      this.limits.set(host, limit);
    }
    const chosen = limit;
    return chosen(work).finally(() => {
      if (chosen.activeCount === 0 && chosen.pendingCount === 0) this.limits.delete(host);
    });
  }
}

/** Codes meaning "nothing speaks TLS there" (a plain-HTTP server or a closed 443), not a bad certificate. */
const NO_TLS_CODES = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST', 'EPROTO']);

/** Whether a failed https attempt means the host has no TLS (so http may be tried), not a bad certificate. */
export function speaksNoTls(code: string | undefined, portGiven: boolean): boolean {
  if (code === undefined) return false;
  // A closed 443 means no TLS there, unless the target named its port (then it is just down).
  return NO_TLS_CODES.has(code) || (code === 'ECONNREFUSED' && !portGiven);
}

export function describeFailure(outcome: Extract<FetchOutcome, { ok: false }>): string {
  switch (outcome.reason) {
    case 'blocked':
      return `${outcome.url.host} resolves to a non-public address, which the service does not fetch`;
    case 'redirect_loop':
      return `${outcome.url.href} redirects in a loop`;
    case 'too_many_redirects':
      return `${outcome.url.href} redirects too many times`;
    case 'bad_redirect':
      return `${outcome.url.href} redirects to an invalid location`;
    case 'not_followed':
      return `a redirect to ${outcome.url.href} was not followed`;
    case 'timeout':
      return `${outcome.url.host} did not answer in time`;
    default:
      return `${outcome.url.host} could not be reached (${outcome.code ?? 'network error'})`;
  }
}
