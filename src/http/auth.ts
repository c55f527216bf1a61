import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import { recordSessionRequest } from '../accounts/sessions.js';
import { findPrincipal, type Principal, type TokenUsageRecorder } from '../accounts/tokens.js';
import type { Database } from '../db/client.js';
import { ProblemError } from './problems.js';

/** What authentication reads of the configuration. */
export interface AuthConfig {
  readonly termsUrl: string | null;
  readonly termsAcceptanceUrl: string | null;
  readonly authCacheMs: number;
}

export interface AuthDeps {
  readonly db: Database;
  readonly config: AuthConfig;
  readonly tokenUsage: TokenUsageRecorder;
}

/**
 * Principals of recently seen tokens, kept for AUTH_CACHE_MS so a busy client is not looked up
 * on every request; a revoked token stops working within that time (0 disables the cache). The
 * requests that find a token's principal expired share one lookup: a client with 100 requests
 * open otherwise sent 100 lookups to Postgres every AUTH_CACHE_MS.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, { principal: Principal | null; at: number }>();
  private readonly loading = new Map<string, Promise<Principal | null>>();
  constructor(private readonly ttlMs: number) {}

  /** The kept principal (null for a token known invalid), or undefined when it must be looked up. */
  peek(token: string): Principal | null | undefined {
    if (this.ttlMs === 0) return undefined;
    const hit = this.entries.get(token);
    return hit && Date.now() - hit.at < this.ttlMs ? hit.principal : undefined;
  }

  get(token: string, load: () => Promise<Principal | null>): Promise<Principal | null> {
    if (this.ttlMs === 0) return load();
    const kept = this.peek(token);
    if (kept !== undefined) return Promise.resolve(kept);
    let pending = this.loading.get(token);
    if (pending === undefined) {
      const now = Date.now();
      pending = load().then((principal) => {
        this.entries.set(token, { principal, at: now });
        if (this.entries.size > 10_000) {
          for (const [key, value] of this.entries) if (now - value.at >= this.ttlMs) this.entries.delete(key);
        }
        return principal;
      });
      const settled = (): void => void this.loading.delete(token);
      pending.then(settled, settled);
      this.loading.set(token, pending);
    }
    return pending;
  }
}

const REALM = 'Bearer realm="pkgscope"';
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

type BearerCredential = { readonly kind: 'none' } | { readonly kind: 'token'; readonly token: string | null };

/** `none` when no bearer credential was offered; a token of null when one was offered but malformed. */
export function readBearer(header: string | undefined): BearerCredential {
  if (header === undefined) return { kind: 'none' };
  const match = /^\s*(\S+)(?:\s+(.*))?$/.exec(header);
  if (!match || match[1]?.toLowerCase() !== 'bearer') return { kind: 'none' };
  const token = (match[2] ?? '').trim();
  return { kind: 'token', token: B64TOKEN.test(token) ? token : null };
}

function unauthenticated(tokenSent: boolean): ProblemError {
  return new ProblemError(
    'AUTHENTICATION_REQUIRED',
    tokenSent ? 'The bearer token is not valid.' : 'This operation requires an Authorization: Bearer token.',
    { headers: { 'www-authenticate': tokenSent ? `${REALM}, error="invalid_token"` : REALM } },
  );
}

/**
 * Authentication in two steps, so that rate limiting can sit between them and key on the
 * account (or, without a valid token, on the client address): `identify` finds the principal of
 * the bearer token (never refusing), `authorize` then refuses a missing or invalid token, checks
 * the session header, the route's capability and the terms, and records a valid session id.
 */
export function authentication(deps: AuthDeps): { identify: onRequestHookHandler; authorize: onRequestAsyncHookHandler } {
  const cache = new PrincipalCache(deps.config.authCacheMs);
  // A callback hook: a token seen within AUTH_CACHE_MS (every request of a busy client) is
  // answered without a promise or a turn of the microtask queue.
  const identify = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const credential = readBearer(request.headers.authorization);
    const token = credential.kind === 'token' ? credential.token : null;
    const kept = token === null ? null : cache.peek(token);
    if (kept !== undefined || token === null) {
      request.principal = kept ?? null;
      done();
      return;
    }
    cache.get(token, () => findPrincipal(deps.db, token)).then(
      (principal) => {
        request.principal = principal;
        done();
      },
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  };
  const authorize = async (request: FastifyRequest): Promise<void> => {
    const principal = request.principal;
    if (!principal) throw unauthenticated(readBearer(request.headers.authorization).kind === 'token');

    if (!request.sessionHeaderValid) {
      throw new ProblemError(
        'INVALID_SESSION_ID',
        'X-Service-Session-ID must be sent at most once and match ^[A-Za-z0-9_-]{1,64}$.',
      );
    }
    const { sessionId = null, clientName = null, clientVersion = null, agent = null } = request.attribution ?? {};
    await Promise.all([
      sessionId === null
        ? undefined
        : recordSessionRequest(deps.db, principal.accountId, sessionId, { clientName, clientVersion, agent }),
      deps.tokenUsage.record(principal.tokenId),
    ]);

    const capability = request.routeOptions.config.capability;
    if (capability !== undefined && !principal.capabilities.includes(capability)) {
      throw new ProblemError('FORBIDDEN', `This account does not have the "${capability}" capability.`);
    }
    if (deps.config.termsUrl !== null && !principal.termsAccepted) {
      const extras: Record<string, string> = { terms_url: deps.config.termsUrl };
      if (deps.config.termsAcceptanceUrl !== null) extras['acceptance_url'] = deps.config.termsAcceptanceUrl;
      throw new ProblemError('FORBIDDEN', 'This account has not accepted the terms of service.', { extras });
    }
  };
  return { identify, authorize };
}
