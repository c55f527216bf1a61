import { BroadcastChannel } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import type { Coordinate } from '../../src/model/enrich-types.js';
import { EMPTY_METADATA, coordinateKey } from '../../src/model/metadata.js';
import { LimitExceededError, TransientAnalysisError, type AnalysisPhase } from '../../src/model/types.js';
import { createAnalysisPool, type AnalysisPool } from '../../src/threads/analysis-pool.js';
import { BudgetPool } from '../../src/threads/budget-pool.js';
import { createPagePool, PageTooHeavy } from '../../src/threads/page-pool.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { manyEntriesNpm } from '../helpers/hostile-inputs.js';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const pool of open) await pool.close();
});

function analysisPool(options: Partial<Parameters<typeof createAnalysisPool>[0]> = {}): AnalysisPool {
  const pool = createAnalysisPool({ threads: 1, maxQueue: 8, budgetMs: 20_000, maxHeapMb: 512, ...options });
  open.push(pool);
  return pool;
}

describe('the analysis pool', () => {
  it('brings registry calls and progress back to the caller, as an in-process analysis would', async () => {
    const phases: AnalysisPhase[] = [];
    const asked: Coordinate[] = [];
    const held: AnalysisPhase[] = [];
    const result = await analysisPool().analyze(SMALL_NPM(), 'cyclonedx', {
      registry: {
        enrich: (coordinates, onProgress) => {
          asked.push(...coordinates);
          onProgress({ coordinates_done: coordinates.length });
          const metadata = new Map(coordinates.map((c) => [coordinateKey(c.ecosystem, c.name, c.version), { ...EMPTY_METADATA, description: 'described by the registry' }]));
          return Promise.resolve({ metadata, failed: [] });
        },
      },
      onProgress: (p) => {
        if (phases.at(-1) !== p.phase) phases.push(p.phase);
      },
      checkpoint: (phase) => {
        held.push(phase);
        return Promise.resolve();
      },
    });
    expect(phases).toEqual(['resolving', 'enriching', 'rendering']);
    expect(held).toEqual(['resolving', 'enriching', 'rendering']);
    expect(asked.length).toBeGreaterThan(0);
    expect(result.document).toContain('described by the registry');
    expect(result.counts.coordinates_done).toBe(asked.length);
  });

  it('answers a lockfile seen again from the thread’s memo while the enricher allows, per enricher, and says so', async () => {
    const pool = analysisPool();
    /** An enricher whose answers may be reused until `until()` (none when it gives undefined); it fails `failing`. */
    const enricher = (until: () => number | undefined, failing: ReadonlySet<string> = new Set()) => {
      const made = {
        calls: 0,
        reusedCount: 0,
        enrich: (coordinates: readonly Coordinate[]) => {
          made.calls++;
          const keys = coordinates.map((c) => coordinateKey(c.ecosystem, c.name, c.version));
          const metadata = new Map(keys.filter((k) => !failing.has(k)).map((k) => [k, { ...EMPTY_METADATA, description: `described at call ${made.calls}` }]));
          const reusableUntil = until();
          return Promise.resolve({ metadata, failed: keys.filter((k) => failing.has(k)), ...(reusableUntil === undefined ? {} : { reusableUntil }) });
        },
        reused: (count: number) => void (made.reusedCount += count),
      };
      return made;
    };
    const run = (registry: ReturnType<typeof enricher>) => pool.analyze(SMALL_NPM(), 'cyclonedx', { registry, now: () => new Date(0) });

    const lasting = enricher(() => Date.now() + 60_000);
    const first = await run(lasting);
    const second = await run(lasting);
    expect(lasting.calls).toBe(1);
    expect(second.counts.cached).toBe(second.counts.coordinates_total);
    expect(lasting.reusedCount).toBe(second.counts.coordinates_total);
    expect(second.document.replace(/urn:uuid:[0-9a-f-]+/, '')).toBe(first.document.replace(/urn:uuid:[0-9a-f-]+/, ''));
    expect(second.document).toContain('described at call 1');

    // Another enricher on the same thread has a memo of its own.
    const other = enricher(() => Date.now() + 60_000);
    expect((await run(other)).document).toContain('described at call 1');
    expect(other.calls).toBe(1);

    // Answers already stale, without a limit, or with a failure among them are not kept.
    for (const refused of [enricher(() => Date.now() - 1), enricher(() => undefined), enricher(() => Date.now() + 60_000, new Set(['accepts@1.3.8']))]) {
      await run(refused);
      expect((await run(refused)).document).toContain('described at call 2');
      expect(refused.reusedCount).toBe(0);
    }
  });

  it('ends a run over its heap limit as execution_failed naming the limit; the next run succeeds', async () => {
    // The budget is far off so that only the heap limit can end the run, however loaded the machine.
    const pool = analysisPool({ maxHeapMb: 64, budgetMs: 100_000 });
    const failure = await pool.analyze([manyEntriesNpm(95_000)], 'cyclonedx', {}).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(LimitExceededError);
    expect(failure).toMatchObject({ code: 'execution_failed', limit: 'ANALYSIS_MAX_HEAP_MB', value: 64 });
    const next = await pool.analyze(SMALL_NPM(), 'text', {});
    expect(next.byteSize).toBeGreaterThan(0);
  }, 120_000);

  it('stops the budget clock while the main thread answers a call, and runs it again after', async () => {
    // A 2 s budget; the registry takes 3 s to answer: only the thread's own work counts, so the
    // run succeeds, and a second run on the same thread does too. A first run without the slow
    // registry loads the thread's modules, so that their loading on a busy machine is not what
    // the budget measures.
    const pool = analysisPool({ budgetMs: 2_000 });
    expect((await pool.analyze(SMALL_NPM(), 'text', {})).byteSize).toBeGreaterThan(0);
    const slowRegistry = {
      enrich: async (coordinates: readonly Coordinate[]) => {
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        return { metadata: new Map(coordinates.map((c) => [coordinateKey(c.ecosystem, c.name, c.version), EMPTY_METADATA])), failed: [] };
      },
    };
    for (let run = 0; run < 2; run++) {
      const result = await pool.analyze(SMALL_NPM(), 'text', { registry: slowRegistry });
      expect(result.byteSize).toBeGreaterThan(0);
    }
  });

  it('refuses a run beyond its queue as a transient failure (retry later)', async () => {
    const pool = analysisPool({ maxQueue: 0 });
    const first = pool.analyze(SMALL_NPM(), 'text', {});
    await expect(pool.analyze(SMALL_NPM(), 'text', {})).rejects.toBeInstanceOf(TransientAnalysisError);
    expect((await first).byteSize).toBeGreaterThan(0);
  });
});

describe('a budget pool', () => {
  it('lets a thread\'s event loop run between runs, so what a run leaves behind (its closed port) is released', async () => {
    const pool = new BudgetPool<{ channel: string }, string>({
      worker: new URL('../helpers/threads/after-run.ts', import.meta.url),
      name: 'after-run',
      maxThreads: 1,
      maxQueue: 1,
      budgetMs: 20_000,
      maxHeapMb: 128,
    });
    open.push(pool);
    for (let run = 0; run < 2; run++) {
      const name = `after-run-${run}`;
      const channel = new BroadcastChannel(name);
      try {
        const heard = new Promise<unknown>((resolve) => {
          channel.onmessage = (event) => resolve((event as MessageEvent).data);
        });
        expect(await pool.run({ channel: name }, {})).toBe('returned');
        // The thread is idle now: only its event loop can send this.
        const late = new Promise<string>((resolve) => setTimeout(() => resolve('nothing within 5 s'), 5_000).unref());
        expect(await Promise.race([heard, late])).toBe('ran after the run');
      } finally {
        channel.close();
      }
    }
  });
});

describe('the page pool', () => {
  it('skips a page whose conversion outlasts its budget, then converts the next one', async () => {
    // A budget a small page meets even on a loaded machine, where the fresh thread that replaces
    // the stopped one may get a tenth of a core (150 ms was missed by the small page at load 20).
    const pool = createPagePool({ threads: 1, budgetMs: 1_000, maxHeapMb: 256 });
    open.push(pool);
    const url = new URL('http://docs.example/guide');
    // Deep nesting with text at every level: conversion work grows faster than the nesting (30,000
    // levels cost 0.9 s of CPU, 100,000 cost 28 s), so 60,000 is several times the budget anywhere.
    const heavy = Buffer.from(`<html><body>${'<div><em>a</em> b '.repeat(60_000)}${'</div>'.repeat(60_000)}</body></html>`);
    await expect(pool.parse(heavy, 'text/html', url)).rejects.toBeInstanceOf(PageTooHeavy);
    const page = await pool.parse(Buffer.from('<html><head><title>Guide</title></head><body><h1>Hello</h1><a href="/next">n</a></body></html>'), 'text/html', url);
    expect(page).toMatchObject({ title: 'Guide', markdown: '# Hello\n\n[n](/next)\n' });
    expect(page.links.map((l) => l.href)).toEqual(['http://docs.example/next']);
  });
});
