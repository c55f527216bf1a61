import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import { PgMetadataCache } from '../../src/db/metadata-cache.js';
import { coordinateKey, EMPTY_METADATA, type PackageMetadata } from '../../src/model/metadata.js';
import type { InputFile } from '../../src/model/types.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { aliasBombPnpm, chainNpm, deepJson, highDegreeNpm, longKeyBun, manyEntriesNpm, manyPeersYarn } from '../helpers/hostile-inputs.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { responsiveBound } from '../helpers/responsiveness.js';
import { SseClient } from '../helpers/sse.js';

/**
 * The reproducers of the hostile-input campaign, through the HTTP API of a real API process:
 * each answers a typed failure (or a correct document) while `GET /healthz` and a small
 * synchronous analysis on the same process keep answering about as fast as just before (the
 * issue's 100 ms on an idle machine; bench/ holds the absolute figures).
 */

const THREADS = 3;

let h: JobsHarness;
let base: string;
let token: string;

beforeAll(async () => {
  h = await startJobsHarness({ ANALYSIS_THREADS: String(THREADS), ANALYSIS_TIME_LIMIT_MS: '20000', ANALYSIS_MAX_HEAP_MB: '512' });
  base = await h.listen();
  token = await h.token();
}, 60_000);
afterAll(() => h.close());

async function post(files: readonly InputFile[], format = 'text'): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${base}/v1/experimental/sbom`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ format, files }),
  });
  const body = await res.text();
  return { status: res.status, body, ms: performance.now() - started };
}

async function healthz(): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${base}/healthz`);
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

// Every thread has loaded the pipeline (a terminated one is replaced by a fresh thread).
beforeEach(async () => {
  const warm = await Promise.all(Array.from({ length: THREADS }, () => post(SMALL_NPM())));
  expect(warm.map((r) => r.status)).toEqual(Array(THREADS).fill(200));
});

/**
 * The latency a probe beside the hostile upload is held to: its median. The analysis runs on a
 * thread and never holds the event loop; what still does, briefly, is the hostile request's own
 * body being read and its answer being written, and on a loaded 2-core machine (two test runs side
 * by side) a tenth of the probes can land on a neighbour's burst (the 90th percentile failed at
 * 301 ms against 250). A loop held for the hostile work's length moves the median; a loop held
 * once is caught by the worst probe, which must still answer within a second.
 */
function typical(latencies: readonly number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}
const STALL_MS = 1_000;

/**
 * The bounds the probes beside the hostile upload are held to, from the same probes just before
 * with no hostile upload. `GET /healthz`: responsiveBound() of its typical latency (a loaded
 * machine, not the loop, makes a probe slow there; 141 ms against a bound of 105 ms failed a CI
 * run). The small analysis: twice that, because on two cores it also shares the CPU with the
 * hostile analysis' thread and the parse of its 32 MiB body, which alone took it from about 35 to
 * 115 ms on an idle machine. A stall (the loop held for a second, or ten times the slowest probe
 * before, whichever is longer) still fails.
 */
async function concurrentBounds(): Promise<{ health: number; small: number; stall: number }> {
  const health: number[] = [];
  const small: number[] = [];
  for (let i = 0; i < 10; i++) {
    const [probe, analysis] = await Promise.all([healthz(), post(SMALL_NPM())]);
    health.push(probe.ms);
    small.push(analysis.ms);
  }
  return {
    health: responsiveBound(typical(health)),
    small: 2 * responsiveBound(typical(small)),
    stall: Math.max(STALL_MS, 10 * Math.max(...health, ...small)),
  };
}

/** Runs the hostile upload while probing the process; returns its answer and the probes' latencies. */
async function beside(
  files: readonly InputFile[],
): Promise<{ status: number; problem: Record<string, unknown>; health: number; small: number; worst: number; bounds: { health: number; small: number; stall: number } }> {
  const bounds = await concurrentBounds();
  const state = { settled: false };
  const hostile = post(files).finally(() => (state.settled = true));
  const health: number[] = [];
  const small: number[] = [];
  do {
    const [probe, analysis] = await Promise.all([healthz(), post(SMALL_NPM())]);
    expect(probe.status).toBe(200);
    expect(analysis.status).toBe(200);
    health.push(probe.ms);
    small.push(analysis.ms);
  } while (!state.settled);
  const answer = await hostile;
  return {
    status: answer.status,
    problem: answer.status === 200 ? {} : (JSON.parse(answer.body) as Record<string, unknown>),
    health: typical(health),
    small: typical(small),
    worst: Math.max(...health, ...small),
    bounds,
  };
}

describe('hostile uploads through POST /v1/experimental/sbom', () => {
  const limitCases: [string, () => InputFile[], string][] = [
    ['a pnpm-lock.yaml alias bomb', () => [aliasBombPnpm()], 'maxYamlAliases'],
    ['a bun.lock key of 16,000 segments', () => [longKeyBun()], 'maxKeyLength'],
    ['a package-lock root with 40,000 dependencies', () => [highDegreeNpm()], 'maxEdgesPerEntry'],
    ['a package-lock of 130,000 entries', () => [manyEntriesNpm()], 'maxEntries'],
    ['`{"a":` 5,000 times', () => [deepJson()], 'maxDepth'],
  ];
  for (const [name, files, limit] of limitCases) {
    it(`answers ${name} with a 422 naming the limit, while the process keeps answering`, async () => {
      const result = await beside(files());
      expect(result.status).toBe(422);
      expect(result.problem).toMatchObject({ code: 'ANALYSIS_FAILED', failure_code: 'execution_failed', limit });
      expect(typeof result.problem['path']).toBe('string');
      expect(result.health).toBeLessThan(result.bounds.health);
      expect(result.small).toBeLessThan(result.bounds.small);
      expect(result.worst).toBeLessThan(result.bounds.stall);
    });
  }

  it('answers a yarn.lock of 8,000 entries × 5 peers with the document, while the process keeps answering', async () => {
    // Warm enrichment cache: this measures the analysis beside the probes, not 8,005 fetches
    // from a fixture registry that serves them on this very event loop.
    const metadata = new Map<string, PackageMetadata>();
    for (let i = 0; i < 8_000; i++) metadata.set(coordinateKey('npm', `p${i}`, '1.0.0'), EMPTY_METADATA);
    for (let q = 0; q < 5; q++) metadata.set(coordinateKey('npm', `q${q}`, '1.0.0'), EMPTY_METADATA);
    await new PgMetadataCache(h.database.db).setMany(metadata);
    const result = await beside([manyPeersYarn()]);
    expect(result.status).toBe(200);
    expect(result.health).toBeLessThan(result.bounds.health);
    expect(result.small).toBeLessThan(result.bounds.small);
    expect(result.worst).toBeLessThan(result.bounds.stall);
  });
});

describe('the time budget of an analysis', () => {
  async function submit(files: readonly InputFile[], format: string): Promise<string> {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/experimental/lockfile-jobs',
      headers: { authorization: `Bearer ${token}` },
      payload: { format, files },
    });
    expect(res.statusCode).toBe(202);
    return res.json<JobSnapshot>().id;
  }

  /** Follows the job's events to its terminal snapshot. */
  async function settled(id: string): Promise<JobSnapshot> {
    const stream = new SseClient(`${base}/v1/experimental/lockfile-jobs/${id}/events`, token);
    await stream.ended;
    const last = stream.snapshots().at(-1);
    if (!last) throw new Error('no snapshot received');
    return last;
  }

  it('fails a job over its budget with resolution_timeout; its thread is replaced and the next job succeeds', async () => {
    const workers = await h.startWorkers({ analysis: { ...h.config.analysis, threads: 1, timeLimitMs: 300 } });
    try {
      const slow = await submit([chainNpm(40_000)], 'cyclonedx');
      expect(await settled(slow)).toMatchObject({ state: 'failed', error: 'resolution_timeout' });
      // Text: a fresh thread compiles no schema validator, so the small job fits a 300 ms budget cold.
      const small = await submit(SMALL_NPM(), 'text');
      expect(await settled(small)).toMatchObject({ state: 'succeeded', error: null });
    } finally {
      await workers.close();
    }
  });

  it('fails a job with an alias bomb as execution_failed, not after minutes', async () => {
    const workers = await h.startWorkers();
    try {
      const id = await submit([aliasBombPnpm()], 'cyclonedx');
      expect(await settled(id)).toMatchObject({ state: 'failed', error: 'execution_failed' });
    } finally {
      await workers.close();
    }
  });
});
