import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Lookups against a remote's history (an abbreviated SHA, a commit no ref points at) cost a fetch
 * each. They are shared: one lookup in flight per repository (others queue behind it), the same
 * question asked meanwhile gets the same answer, and answers (found or not) are kept `ttlMs`.
 * Failures are not kept: the next request asks again.
 */
export class SharedLookups {
  private readonly answers = new Map<string, { settledAt: number | null; value: Promise<unknown> }>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 1_000,
  ) {}

  run<T>(repository: string, question: string, work: () => Promise<T>): Promise<T> {
    const key = `${repository}\u0000${question}`;
    const known = this.answers.get(key);
    if (known && (known.settledAt === null || Date.now() - known.settledAt < this.ttlMs)) return known.value as Promise<T>;
    const previous = this.queues.get(repository) ?? Promise.resolve();
    const value = previous.then(work, work);
    const entry = { settledAt: null as number | null, value: value as Promise<unknown> };
    if (this.answers.size >= this.maxEntries) this.answers.clear();
    this.answers.set(key, entry);
    const settled = value.then(
      () => {
        entry.settledAt = Date.now();
        if (this.ttlMs === 0 && this.answers.get(key) === entry) this.answers.delete(key);
      },
      () => {
        if (this.answers.get(key) === entry) this.answers.delete(key);
      },
    );
    this.queues.set(repository, settled);
    void settled.then(() => {
      if (this.queues.get(repository) === settled) this.queues.delete(repository);
    });
    return value;
  }
}

/** Bytes of the packs (kept and being received) under a repository's `objects/pack`. */
export async function packBytes(packDir: string): Promise<number> {
  const names = await readdir(packDir).catch(() => [] as string[]);
  let bytes = 0;
  for (const name of names) if (name.startsWith('tmp_pack') || name.endsWith('.pack')) bytes += (await stat(join(packDir, name)).catch(() => null))?.size ?? 0;
  return bytes;
}

/**
 * Watches the packs a fetch writes under `packDir` and calls `over` once they hold more than
 * `limit` bytes; returns the function that stops watching.
 */
export function stopPastBytes(packDir: string, limit: number, over: () => void): () => void {
  let done = false;
  const check = async (): Promise<void> => {
    const bytes = await packBytes(packDir);
    if (!done && bytes > limit) {
      done = true;
      clearInterval(timer);
      over();
    }
  };
  const timer = setInterval(() => void check(), 50);
  timer.unref();
  void check();
  return () => {
    done = true;
    clearInterval(timer);
  };
}
