import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { ProblemError } from './problems.js';

export interface RateLimitConfig {
  /** Requests per window per account; 0 disables rate limiting. */
  readonly perAccount: number;
  /** Requests per window per client address for requests without a valid token. */
  readonly unauthenticated: number;
  readonly windowMs: number;
}

export interface RateLimitDeps {
  readonly config: RateLimitConfig;
  /** The Redis every API instance shares: the counters live there. */
  readonly redis: Redis;
  readonly prefix: string;
}

/** Whose budget a request spends: its account, or its client address without a valid token. */
export function rateLimitKey(request: FastifyRequest): string {
  return request.principal ? `account:${request.principal.accountId}` : `address:${request.ip}`;
}

/**
 * Takes up to a lease of a key's budget in its current window: the lease is a sixteenth of what
 * is left (at least 1, at most ARGV[4]), never more than is left, and the window starts with the
 * first lease. Returns {granted, window ms left, count before}.
 */
const LEASE_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
local max = tonumber(ARGV[2])
local want = math.max(1, math.min(tonumber(ARGV[3]), math.floor((max - count) / 16)))
local granted = math.max(0, math.min(want, max - count))
if granted > 0 then redis.call('INCRBY', KEYS[1], granted) end
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {granted, ttl, count}
`;
const LEASE_SHA = createHash('sha1').update(LEASE_SCRIPT).digest('hex');
/** The largest lease: a process holds at most this many of a key's requests unspent. */
const MAX_LEASE = 50;

/** One key's budget as this process knows it, for the window ending at `windowEnd`. */
interface Budget {
  readonly windowEnd: number;
  /** Requests leased to this process and not yet spent. */
  tokens: number;
  /** The window's budget is spent everywhere: refuse until `windowEnd` without asking Redis. */
  exhausted: boolean;
  /** What Redis had counted at the last lease, with that lease: for X-RateLimit-Remaining. */
  counted: number;
}

type Verdict = { readonly allowed: true; readonly budget: Budget | null } | { readonly allowed: false; readonly budget: Budget };

/**
 * A fixed-window rate limiter whose counters live in Redis, shared by every API instance, that
 * does not ask Redis on every request: each process leases a slice of a key's window budget
 * (a sixteenth of what is left, at most 50 requests) in one round trip and spends it locally.
 * Near the limit the slices shrink to one request, so the limit is exact: no window ever admits
 * more than its limit across the fleet. The cost is that leased, unspent requests of one
 * instance are not available to another, so a client spread over instances can be refused a few
 * requests early (at most a sixteenth of what was left when the others leased).
 *
 * Written here rather than with @fastify/rate-limit, whose Redis store makes a round trip per
 * request; that round trip was a fifth of the API's CPU under status polling.
 */
export class LeasedRateLimiter {
  private readonly budgets = new Map<string, Budget>();
  private readonly leasing = new Map<string, Promise<Budget | null>>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Spends one request of `key`'s budget from what this process holds, without Redis: the
   * verdict, or null when a lease must be asked for first (then use `take`).
   */
  takeHeld(key: string): Verdict | null {
    const budget = this.budgets.get(key);
    if (budget === undefined) return null;
    if (budget.windowEnd <= this.now()) {
      this.budgets.delete(key);
      return null;
    }
    if (budget.tokens > 0) {
      budget.tokens--;
      return { allowed: true, budget };
    }
    return budget.exhausted ? { allowed: false, budget } : null;
  }

  /** Spends one request of `key`'s budget (`max` per window). Redis failing lets the request through. */
  async take(key: string, max: number): Promise<Verdict> {
    for (;;) {
      const held = this.takeHeld(key);
      if (held !== null) return held;
      const leased = await this.lease(key, max);
      // Redis did not answer: fail open.
      if (leased === null) return { allowed: true, budget: null };
    }
  }

  /** Milliseconds until `budget`'s window ends. */
  msLeft(budget: Budget): number {
    return Math.max(0, budget.windowEnd - this.now());
  }

  private lease(key: string, max: number): Promise<Budget | null> {
    let pending = this.leasing.get(key);
    if (pending === undefined) {
      pending = this.askRedis(key, max).finally(() => this.leasing.delete(key));
      this.leasing.set(key, pending);
    }
    return pending;
  }

  private async askRedis(key: string, max: number): Promise<Budget | null> {
    const redisKey = `${this.prefix}:rate-limit:${key}`;
    const args = [String(this.windowMs), String(max), String(MAX_LEASE)];
    let reply: unknown;
    try {
      try {
        reply = await this.redis.evalsha(LEASE_SHA, 1, redisKey, ...args);
      } catch (error) {
        if (!String((error as { message?: unknown } | null)?.message).startsWith('NOSCRIPT')) throw error;
        reply = await this.redis.eval(LEASE_SCRIPT, 1, redisKey, ...args);
      }
    } catch {
      return null;
    }
    const [granted, ttl, count] = (Array.isArray(reply) ? reply : []).map(Number);
    if (granted === undefined || ttl === undefined || count === undefined || [granted, ttl, count].some(Number.isNaN)) return null;
    const budget: Budget = { windowEnd: this.now() + ttl, tokens: granted, exhausted: granted === 0, counted: count + granted };
    if (this.budgets.size >= 10_000) this.prune();
    this.budgets.set(key, budget);
    return budget;
  }

  private prune(): void {
    const now = this.now();
    for (const [key, budget] of this.budgets) if (budget.windowEnd <= now) this.budgets.delete(key);
  }
}

/**
 * Rate limiting on the Redis every API instance shares (LeasedRateLimiter): a fixed window of
 * `windowMs` per account, and a smaller one per client address for requests without a valid
 * token. Over the limit: 429 `RATE_LIMITED` with `Retry-After`. Every answer carries
 * X-RateLimit-Limit, X-RateLimit-Remaining (as this instance knows it) and X-RateLimit-Reset
 * (seconds). Should Redis not answer, requests are let through (the limiter fails open; Redis
 * being down is alerted on elsewhere and must not take the API down with it). Returns the hook
 * to run after `identify`, or null when rate limiting is off.
 */
export function rateLimitHook(deps: RateLimitDeps): onRequestHookHandler | null {
  const { config } = deps;
  if (config.perAccount === 0) return null;
  const limiter = new LeasedRateLimiter(deps.redis, deps.prefix, config.windowMs);
  const seconds = Math.round(config.windowMs / 1000);
  const apply = (reply: FastifyReply, max: number, verdict: Verdict): ProblemError | undefined => {
    if (verdict.budget === null) return undefined;
    const reset = Math.ceil(limiter.msLeft(verdict.budget) / 1000);
    const remaining = verdict.allowed ? Math.max(0, max - verdict.budget.counted + verdict.budget.tokens) : 0;
    reply.header('x-ratelimit-limit', max).header('x-ratelimit-remaining', remaining).header('x-ratelimit-reset', reset);
    if (verdict.allowed) return undefined;
    return new ProblemError('RATE_LIMITED', `More than ${max} requests in ${seconds} s; retry after ${reset} s.`, {
      headers: { 'retry-after': String(Math.max(1, reset)) },
    });
  };
  // A callback hook: a request spent from a held lease (all but about one in fifty) answers
  // without a promise or a turn of the microtask queue.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const max = request.principal ? config.perAccount : config.unauthenticated;
    const key = rateLimitKey(request);
    const held = limiter.takeHeld(key);
    if (held !== null) {
      done(apply(reply, max, held));
      return;
    }
    limiter.take(key, max).then(
      (verdict) => done(apply(reply, max, verdict)),
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  };
}
