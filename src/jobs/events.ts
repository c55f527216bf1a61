import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { StoreUnavailableError } from '../store-errors.js';
import type { JobSnapshot } from './snapshot.js';

/** The pub/sub channel carrying a job's snapshots. */
export function jobChannel(prefix: string, jobId: string): string {
  return `${prefix}:job-events:${jobId}`;
}

export type SnapshotSink = (snapshot: JobSnapshot) => Promise<void>;

/** Publishes a message, best effort (listeners re-read Postgres, the truth, when they go quiet). */
export async function publishEvent(redis: Redis, channel: string, message: string, logger: Logger): Promise<void> {
  try {
    await redis.publish(channel, message);
  } catch (error) {
    logger.warn({ err: error, channel }, 'event publish failed');
  }
}

/**
 * Publishes a committed snapshot. Delivery is best effort: Postgres holds the truth, and every
 * stream re-reads it after a Redis reconnect and whenever it went quiet for a heartbeat
 * interval, so a lost message (or a worker dying before it published) delays an update by at
 * most two heartbeat intervals, never loses it.
 */
export function snapshotPublisher(redis: Redis, prefix: string, logger: Logger): SnapshotSink {
  return (snapshot) => publishEvent(redis, jobChannel(prefix, snapshot.id), JSON.stringify(snapshot), logger);
}

/** A listener of one channel: messages arrive as published text. */
export interface ChannelListener {
  onMessage(message: string): void;
  /** Called after Redis reconnected: messages may have been missed, so re-read the truth. */
  onResync(): void;
  /** Called when the process shuts down. */
  onClose(): void;
}

interface Channel {
  readonly listeners: Set<ChannelListener>;
  readonly subscribed: Promise<unknown>;
}

/**
 * One subscriber connection per API process, fanned out in memory to every listener (event
 * streams, waits for preparations). Subscribing resolves once Redis confirmed the subscription,
 * so state read afterwards from Postgres cannot miss a later publish.
 */
export class EventHub {
  private readonly channels = new Map<string, Channel>();
  private disconnected = false;

  constructor(
    private readonly subscriber: Redis,
    private readonly logger: Logger,
    /** How long a subscription may wait for Redis before the caller is told it is unavailable. */
    private readonly subscribeTimeoutMs = 3_000,
  ) {
    subscriber.on('message', (channel: string, message: string) => this.dispatch(channel, message));
    subscriber.on('close', () => {
      this.disconnected = true;
    });
    subscriber.on('ready', () => {
      if (!this.disconnected) return;
      this.disconnected = false;
      void this.resync();
    });
  }

  /**
   * Listens on a channel; resolves (with the way to stop) once Redis confirmed the subscription.
   * While Redis is down it fails at once (reconnecting) or after a short wait (connecting) with
   * StoreUnavailableError, so a request never hangs on it.
   */
  async subscribe(name: string, listener: ChannelListener): Promise<() => void> {
    if (['reconnecting', 'close', 'end'].includes(this.subscriber.status)) {
      throw new StoreUnavailableError('redis', 'the event subscriber is not connected to Redis');
    }
    let channel = this.channels.get(name);
    if (!channel) {
      const subscribed = this.subscriber.subscribe(name);
      // A subscription abandoned on timeout may still fail later; nobody waits for it then.
      subscribed.catch(() => undefined);
      channel = { listeners: new Set(), subscribed };
      this.channels.set(name, channel);
    }
    channel.listeners.add(listener);
    const current = channel;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new StoreUnavailableError('redis', 'Redis did not confirm the subscription in time')), this.subscribeTimeoutMs);
    });
    try {
      await Promise.race([current.subscribed, timeout]);
    } catch (error) {
      this.remove(name, current, listener);
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return () => this.remove(name, current, listener);
  }

  private remove(name: string, channel: Channel, listener: ChannelListener): void {
    channel.listeners.delete(listener);
    if (channel.listeners.size > 0 || this.channels.get(name) !== channel) return;
    this.channels.delete(name);
    this.subscriber.unsubscribe(name).catch(() => undefined);
  }

  private dispatch(name: string, message: string): void {
    const channel = this.channels.get(name);
    if (!channel) return;
    for (const listener of [...channel.listeners]) listener.onMessage(message);
  }

  /** Re-subscribes (confirmed) and tells every stream to re-read its snapshot. */
  private async resync(): Promise<void> {
    const names = [...this.channels.keys()];
    try {
      if (names.length > 0) await this.subscriber.subscribe(...names);
    } catch (error) {
      this.logger.warn({ err: error }, 'resubscribe after reconnect failed');
      return;
    }
    this.logger.info({ channels: names.length }, 'event streams resynchronised after a Redis reconnect');
    for (const channel of this.channels.values()) for (const listener of [...channel.listeners]) listener.onResync();
  }

  /** Number of open listeners in this process. */
  get size(): number {
    let n = 0;
    for (const channel of this.channels.values()) n += channel.listeners.size;
    return n;
  }

  get channelCount(): number {
    return this.channels.size;
  }

  /** Ends every open stream (shutdown). */
  closeAll(): void {
    for (const channel of [...this.channels.values()]) for (const listener of [...channel.listeners]) listener.onClose();
  }
}
