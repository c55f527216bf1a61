import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent, interceptors, type Dispatcher } from 'undici';
import { addressPolicy, bareHost, BlockedAddress, literalAllowed, policyLookup } from './address-policy.js';

/**
 * The dispatchers every fetch made on behalf of a target goes through, made from the undici
 * this project depends on (never the process-global dispatcher: when Node's own fetch ran first,
 * that is Node's bundled undici, whose handler API the interceptors here do not speak).
 */

export interface OutgoingOptions {
  /** URLs (registry bases) whose host and port may be reached at any address: an operator configured them. */
  readonly trusted: readonly string[];
  /** Let every fetch reach private addresses too (`REGISTRY_ALLOW_PRIVATE_ADDRESSES`). */
  readonly allowPrivate: boolean;
  /** Certificate authorities to trust instead of Node's (npm's `ca` setting). */
  readonly ca?: string | readonly string[] | null;
  /** Sockets per origin. */
  readonly connections?: number;
  readonly connectTimeoutMs?: number;
}

export interface Outgoing {
  /** Requests under the address policy; redirects are not followed (a client composes its own). */
  readonly dispatcher: Dispatcher;
  /** The same, following up to 5 redirects: every hop is checked, and credentials are dropped on any change of origin. */
  readonly following: Dispatcher;
  /** Whether a URL's origin is a configured one (reached at any address). */
  trusts(url: string | URL): boolean;
  /**
   * Checks a URL before a client that connects by itself (npm's own fetch stack) is given it:
   * rejects with `BlockedAddress` unless it is trusted or resolves to an allowed address.
   */
  check(url: string | URL): Promise<void>;
  close(): Promise<void>;
}

export const MAX_REDIRECTS = 5;

/** The host and port of a URL as `URL.host` spells them (default ports left out). */
function hostOf(url: string | URL): string | null {
  try {
    const parsed = typeof url === 'string' ? new URL(url) : url;
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.host : null;
  } catch {
    return null;
  }
}

export function createOutgoing(options: OutgoingOptions): Outgoing {
  const allowAddress = addressPolicy(options.allowPrivate);
  const trustedHosts = new Set(options.trusted.map(hostOf).filter((h): h is string => h !== null));
  const base = { connections: options.connections ?? 32, keepAliveTimeout: 10_000 };
  const connect = { timeout: options.connectTimeoutMs ?? 10_000, ...(options.ca ? { ca: typeof options.ca === 'string' ? options.ca : [...options.ca] } : {}) };
  const trustedAgent = new Agent({ ...base, connect });
  // Configured origins connect to whatever their names resolve to; every other one only to allowed addresses.
  const checkedAgent = options.allowPrivate ? trustedAgent : new Agent({ ...base, connect: { ...connect, lookup: policyLookup(allowAddress) } });
  const trusts = (url: string | URL): boolean => {
    const host = hostOf(url);
    return host !== null && trustedHosts.has(host);
  };

  const guard: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
    const origin = new URL(String(opts.origin));
    if (trusts(origin)) return trustedAgent.dispatch(opts, handler);
    // Literal addresses never reach the resolver: check them here.
    if (hostOf(origin) === null || !literalAllowed(origin.hostname, allowAddress)) {
      handler.onResponseError?.(null as unknown as Dispatcher.DispatchController, new BlockedAddress(origin.host));
      return true;
    }
    return dispatch(opts, handler);
  };
  const dispatcher = checkedAgent.compose(guard);
  // undici's redirect handler dispatches each hop through `dispatcher`, so the guard sees every one;
  // it drops authorization, cookie and proxy-authorization when scheme, host or port change.
  const following = dispatcher.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTS }));

  let closing: Promise<void> | null = null;
  return {
    dispatcher,
    following,
    trusts,
    async check(url) {
      if (trusts(url)) return;
      const parsed = new URL(url);
      const host = bareHost(parsed.hostname);
      if (hostOf(parsed) === null) throw new BlockedAddress(parsed.host);
      if (isIP(host) !== 0) {
        if (!allowAddress(host)) throw new BlockedAddress(parsed.host);
        return;
      }
      const addresses = await dnsLookup(host, { all: true });
      if (!addresses.some((a) => allowAddress(a.address))) throw new BlockedAddress(parsed.host);
    },
    /** Closes the connection pools (once, however often it is called). */
    close() {
      closing ??= Promise.all([trustedAgent.close(), checkedAgent === trustedAgent ? undefined : checkedAgent.close()]).then(() => undefined);
      return closing;
    },
  };
}
