import { describe, expect, it } from 'vitest';
import { SnapshotReads } from '../../src/jobs/snapshot-reads.js';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';

const snapshot = (id: string, revision = 1): JobSnapshot => ({ id, revision }) as unknown as JobSnapshot;

/** A lookup that records each query's ids and answers from `known`. */
function recording(known: readonly string[]) {
  const queries: string[][] = [];
  let failNext = false;
  return {
    queries,
    failOnce: () => void (failNext = true),
    find: (ids: readonly string[]): Promise<ReadonlyMap<string, JobSnapshot>> => {
      queries.push([...ids]);
      if (failNext) {
        failNext = false;
        return Promise.reject(new Error('connection terminated'));
      }
      return Promise.resolve(new Map(ids.filter((id) => known.includes(id)).map((id) => [id, snapshot(id)])));
    },
  };
}

describe('gathered snapshot re-reads', () => {
  it('asks once for every job read within the window, each job once, and answers each reader', async () => {
    const store = recording(['a', 'b']);
    const reads = new SnapshotReads(store.find, 10);
    const answers = await Promise.all([reads.read('a'), reads.read('b'), reads.read('a'), reads.read('gone')]);
    expect(store.queries).toEqual([['a', 'b', 'gone']]);
    expect(answers.map((s) => s?.id ?? null)).toEqual(['a', 'b', 'a', null]);
    // The next window is a query of its own.
    expect((await reads.read('b'))?.id).toBe('b');
    expect(store.queries).toHaveLength(2);
  });

  it('goes at once when a batch is full, without waiting for its window', async () => {
    const store = recording(['a', 'b', 'c']);
    const reads = new SnapshotReads(store.find, 3_600_000, 2);
    expect((await Promise.all([reads.read('a'), reads.read('b')])).map((s) => s?.id)).toEqual(['a', 'b']);
    expect(store.queries).toEqual([['a', 'b']]);
  });

  it('fails every reader of a batch whose query failed, and the next batch is asked again', async () => {
    const store = recording(['a']);
    const reads = new SnapshotReads(store.find, 5);
    store.failOnce();
    const failed = await Promise.allSettled([reads.read('a'), reads.read('a')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((await reads.read('a'))?.id).toBe('a');
    expect(store.queries).toEqual([['a'], ['a']]);
  });
});
