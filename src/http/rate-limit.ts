import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import type { RateLimitConfig } from '../config.js';
import type { App } from './app-types.js';
import { ProblemError } from './problems.js';

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
 * Rate limiting with @fastify/rate-limit on a Redis store shared by all API instances: a
 * fixed window of `windowMs` per account, and a smaller one per client address for requests
 * without a valid token. Over the limit: 429 `RATE_LIMITED` with `Retry-After`. Should Redis not
 * answer, requests are let through (the limiter fails open; Redis being down is alerted on
 * elsewhere and must not take the API down with it). Returns the hook to run after `identify`.
 */
export async function rateLimitHook(scope: App, deps: RateLimitDeps): Promise<onRequestAsyncHookHandler | null> {
  const { config } = deps;
  if (config.perAccount === 0) return null;
  await scope.register(fastifyRateLimit, { global: false, redis: deps.redis, nameSpace: `${deps.prefix}:rate-limit:`, skipOnError: true });
  const seconds = Math.round(config.windowMs / 1000);
  return scope.rateLimit({
    timeWindow: config.windowMs,
    keyGenerator: rateLimitKey,
    max: (request) => (request.principal ? config.perAccount : config.unauthenticated),
    errorResponseBuilder: (_request, context) =>
      new ProblemError('RATE_LIMITED', `More than ${context.max} requests in ${seconds} s; retry after ${context.after}.`),
  });
}
