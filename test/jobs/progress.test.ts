import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProgressWriter } from '../../src/jobs/progress.js';
import type { JobPhase, JobSnapshot } from '../../src/jobs/snapshot.js';
import type { ProgressCounts } from '../../src/model/types.js';

/** A writer whose writes are recorded; the clock is vitest's fake one. */
function recorder(intervalMs: number, claimedAt: number | null) {
  const writes: { phase: JobPhase; counts: ProgressCounts; at: number }[] = [];
  const stops: unknown[] = [];
  const writer = new ProgressWriter(
    async (phase, counts) => {
      writes.push({ phase, counts, at: Date.now() });
      return {} as JobSnapshot;
    },
    intervalMs,
    (error) => stops.push(error),
    Date.now,
    claimedAt === null ? null : { phase: 'resolving', at: claimedAt },
  );
  return { writer, writes, stops };
}

describe('progress writes', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('writes nothing for phases that pass within the interval begun by the claim', async () => {
    const { writer, writes } = recorder(250, Date.now());
    writer.report('resolving', { manifests_total: 1 });
    await vi.advanceTimersByTimeAsync(5);
    writer.report('enriching', { coordinates_total: 80 });
    await vi.advanceTimersByTimeAsync(5);
    writer.report('rendering', { coordinates_done: 80 });
    await writer.close();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(writes).toEqual([]);
  });

  it('shows a phase that lasts, an interval after the last write at most, the latest report winning', async () => {
    const { writer, writes } = recorder(250, Date.now());
    writer.report('enriching', { coordinates_total: 80 });
    await vi.advanceTimersByTimeAsync(100);
    writer.report('enriching', { coordinates_total: 80, coordinates_done: 10 });
    await vi.advanceTimersByTimeAsync(150);
    expect(writes).toEqual([{ phase: 'enriching', counts: { coordinates_total: 80, coordinates_done: 10 }, at: 1_000_250 }]);
    // Long after the last write, a phase change goes out at once.
    await vi.advanceTimersByTimeAsync(1_000);
    writer.report('rendering', { coordinates_done: 80 });
    await vi.advanceTimersByTimeAsync(0);
    expect(writes.at(-1)).toEqual({ phase: 'rendering', counts: { coordinates_done: 80 }, at: 1_001_250 });
    await writer.close();
  });

  it('writes every phase change at once with an interval of 0', async () => {
    const { writer, writes } = recorder(0, Date.now());
    writer.report('enriching', {});
    writer.report('rendering', {});
    await writer.close();
    expect(writes.map((w) => w.phase)).toEqual(['enriching', 'rendering']);
  });
});
