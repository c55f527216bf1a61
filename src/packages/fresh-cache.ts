import { LRUCache } from 'lru-cache';

/**
 * Registry answers kept for as long as they are fresh, in this process, with the time each was
 * fetched (answers report it): concurrent requests for one key share one registry request, and a
 * failed request is forgotten at once (the next one asks again). A package's version list moves
 * (new releases, yanks), so it is kept briefly; a release's facts barely change (a deprecation
 * can), so they are kept longer.
 */
export interface Fresh<T> {
  readonly value: T;
  /** Epoch ms. */
  readonly fetchedAt: number;
}

export class FreshCache<T extends object | null> {
  private readonly entries: LRUCache<string, Promise<Fresh<T>>>;
  /** False for a freshness of 0: nothing is kept, every get fetches. */
  private readonly keep: boolean;

  constructor(
    ttlMs: number,
    max: number,
    private readonly now: () => number = Date.now,
  ) {
    this.entries = new LRUCache({ max, ttl: Math.max(ttlMs, 1) });
    this.keep = ttlMs > 0;
  }

  get(key: string, load: () => Promise<T>): Promise<Fresh<T>> {
    const held = this.entries.get(key);
    if (held !== undefined) return held;
    const made = load().then((value) => ({ value, fetchedAt: this.now() }));
    if (!this.keep) return made;
    this.entries.set(key, made);
    made.catch(() => {
      if (this.entries.get(key) === made) this.entries.delete(key);
    });
    return made;
  }
}
