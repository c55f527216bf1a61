import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { LeasedRateLimiter } from '../../src/http/rate-limit.js';

const redis = new Redis('redis://127.0.0.1:6379');
const prefix = `pkgscope-test-rate-${randomBytes(4).toString('hex')}`;
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const counted = async (key: string): Promise<number> => Number((await redis.get(`${prefix}:rate-limit:${key}`)) ?? 0);

describe('the leased rate limiter', () => {
  it('asks Redis once per lease, not once per request, while the budget is large', async () => {
    const limiter = new LeasedRateLimiter(redis, prefix, 60_000);
    expect((await limiter.take('busy', 10_000)).allowed).toBe(true);
    // A lease is a sixteenth of what is left, at most 50 requests.
    expect(await counted('busy')).toBe(50);
    for (let i = 1; i < 50; i++) expect((await limiter.take('busy', 10_000)).allowed).toBe(true);
    expect(await counted('busy')).toBe(50);
    await limiter.take('busy', 10_000);
    expect(await counted('busy')).toBe(100);
    const ttl = await redis.pttl(`${prefix}:rate-limit:busy`);
    expect(ttl).toBeGreaterThan(59_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('admits exactly the limit across instances, however the requests are spread', async () => {
    const instances = [new LeasedRateLimiter(redis, prefix, 60_000), new LeasedRateLimiter(redis, prefix, 60_000), new LeasedRateLimiter(redis, prefix, 60_000)];
    let admitted = 0;
    // Bursts of concurrent requests on every instance, well past the limit.
    for (let round = 0; round < 20; round++) {
      const verdicts = await Promise.all(instances.flatMap((limiter) => Array.from({ length: 5 }, () => limiter.take('spread', 137))));
      admitted += verdicts.filter((v) => v.allowed).length;
    }
    expect(admitted).toBe(137);
    expect(await counted('spread')).toBe(137);
  });

  it('refuses a spent window without asking Redis again, and admits again once the window is over', async () => {
    let now = Date.now();
    const limiter = new LeasedRateLimiter(redis, prefix, 60_000, () => now);
    for (let i = 0; i < 3; i++) expect((await limiter.take('tight', 3)).allowed).toBe(true);
    const refused = await limiter.take('tight', 3);
    expect(refused.allowed).toBe(false);
    expect(limiter.msLeft(refused.budget!)).toBeGreaterThan(59_000);
    // Spent, so known locally: a request another instance admitted meanwhile is not needed to know it.
    await redis.del(`${prefix}:rate-limit:tight`);
    expect((await limiter.take('tight', 3)).allowed).toBe(false);
    // The window is over (Redis expired the key): a new one starts.
    now += 60_001;
    expect((await limiter.take('tight', 3)).allowed).toBe(true);
    expect(await counted('tight')).toBe(1);
  });

  it('lets requests through when Redis does not answer', async () => {
    const down = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
    down.on('error', () => undefined);
    const limiter = new LeasedRateLimiter(down, prefix, 60_000);
    for (let i = 0; i < 3; i++) expect(await limiter.take('anyone', 1)).toEqual({ allowed: true, budget: null });
    down.disconnect();
  });
});
