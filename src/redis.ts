import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.js';
import { OutageLog } from './outage-log.js';
import { UnreachableServiceError } from './unreachable.js';

/**
 * Every Redis connection of the service is made here, with the options its role needs:
 * - `commands`: request-path commands (enqueue, publish, rate limits). Fails at once when Redis
 *   is down (after the first connection) so an HTTP request gets an answer instead of waiting.
 * - `blocking`: BullMQ workers and queue-event readers. BullMQ requires `maxRetriesPerRequest: null`
 *   so a blocking read survives reconnects.
 * - `subscriber`: the one pub/sub connection per process; resubscribes after a reconnect.
 */
export type RedisRole = 'commands' | 'blocking' | 'subscriber';

const ROLE_OPTIONS: Record<RedisRole, RedisOptions> = {
  commands: { maxRetriesPerRequest: 2, enableOfflineQueue: true },
  blocking: { maxRetriesPerRequest: null, enableOfflineQueue: true },
  subscriber: { maxRetriesPerRequest: null, autoResubscribe: true },
};

export const HOW_TO_START_REDIS =
  'start it with `redis-server --daemonize yes --port 6379` or `docker compose up -d redis`, or set REDIS_URL';

/**
 * A connection for `role`. With a logger, an outage gives one structured warning per interval
 * (and one line when it is over) instead of an error per reconnect attempt.
 */
export function createRedis(url: string, role: RedisRole, name = `pkgscope-${role}`, logger?: Logger): Redis {
  const redis = new Redis(url, {
    ...ROLE_OPTIONS[role],
    connectionName: name,
    // Reconnect quickly at first, then every 2 s at most: workers and API ride out Redis restarts.
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), 2_000),
  });
  // Connection errors are retried by ioredis; the listener keeps them from being unhandled.
  const outages = logger ? new OutageLog(logger.child({ store: 'redis' })) : null;
  redis.on('error', (error: unknown) => outages?.warn(name, error, 'redis connection problem'));
  redis.on('ready', () => outages?.recovered(name, 'redis connection recovered'));
  if (role === 'commands') {
    // Commands sent before the first connection wait for it (start-up); once it was up, a
    // command during an outage fails at once instead of waiting for reconnects, so a request
    // (rate limit, enqueue, publish) gets its answer promptly. ioredis reads this per command.
    redis.once('ready', () => {
      redis.options.enableOfflineQueue = false;
    });
  }
  return redis;
}

/** One connection attempt with no retries; throws UnreachableServiceError naming the URL. */
export async function checkRedis(url: string): Promise<void> {
  const probe = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    connectTimeout: 5_000,
  });
  let socketError: unknown;
  probe.on('error', (error: unknown) => (socketError ??= error));
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    // connect() rejects with a generic "Connection is closed"; the socket's own error says why.
    throw new UnreachableServiceError('Redis', url, socketError ?? error, HOW_TO_START_REDIS);
  } finally {
    probe.disconnect();
  }
}

/** Closes a connection, waiting for QUIT when it is up and dropping it when it is not. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status === 'ready') {
    try {
      await redis.quit();
      return;
    } catch {
      // fall through to disconnect
    }
  }
  redis.disconnect();
}
