import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileMatcher, GREP_LIMITS } from '../../src/inventory/query/grep.js';
import { scanBatch, type ScanFrom } from '../../src/inventory/query/grep-scan.js';
import type { GrepResponseType } from '../../src/routes/inventory/grep-schemas.js';
import type { RunningWorkers } from '../../src/processes/workers.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { baseline, postJson, probeBound, probeWhile } from '../helpers/probe.js';
import { packageTarball } from '../helpers/tarball.js';

/**
 * Grep cannot stall the API (issue #29): a pattern whose program makes each character cost
 * thousands of steps runs on a grep thread, stops inside a file at the request's bounds, and
 * probes answer meanwhile; patterns PostgreSQL cannot take are a 400 or are scanned, never a 500.
 */

// 200 KB of ordinary lines, and one line too long for the hostile program to afford at all.
const BIG = Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(5, '0')} ${'lorem ipsum dolor sit amet '.repeat(3)}`.padEnd(99, '.')).join('\n');
const FILES: Record<string, string> = {
  'package.json': '{"name":"dos","version":"1.0.0"}\n',
  'big.txt': `${BIG}\n`,
  'wide.txt': `${'w'.repeat(3000)}\ntail\n`,
  'aaa.txt': `${'a'.repeat(300)}\n`,
  'small.js': 'const needle = 1;\n',
};
// 228 characters; 19,002 RE2 instructions (just within the bound), every one live on every character.
const HOSTILE = '[\\s\\S]{1000}'.repeat(19);

let h: JobsHarness;
let token: string;
let base: string;
let workers: RunningWorkers;
const { listOk } = inventoryClient(
  () => h.app,
  () => token,
);

beforeAll(async () => {
  h = await startJobsHarness({}, { packages: { dos: { versions: { '1.0.0': { _tarball: await packageTarball(FILES) } } } } });
  token = await h.token('dos');
  workers = await h.startWorkers();
  await listOk({ target: 'npm:dos@1.0.0', wait_timeout_ms: 20_000 });
  base = await h.listen();
});
afterAll(async () => {
  await workers.close();
  await h.close();
});

type Answer = GrepResponseType & { code?: string; detail?: string };
const grep = async (body: Record<string, unknown>): Promise<{ status: number; json: Answer }> => {
  const res = await postJson(base, '/v1/grep', token, { target: 'npm:dos@1.0.0', ...body });
  return { status: res.status, json: res.json as Answer };
};

describe('grep under hostile patterns', () => {
  it('stops inside a 200 KB file at the work bound while probes answer, and pages on from there', async () => {
    const quiet = await baseline(base, token);
    const { result, worstMs, probes } = await probeWhile(base, token, grep({ pattern: HOSTILE, regex: true, paths: ['big.txt'] }));
    expect(result.status, JSON.stringify(result.json)).toBe(200);
    const page = result.json;
    expect(page).toMatchObject({ stopped_at: 'bytes_scanned', has_more: true, matches: [], files_scanned: 1 });
    // Stopped inside the only file, after part of it: program size × characters within the bound.
    expect(page.bytes_scanned).toBeGreaterThan(0);
    expect(page.bytes_scanned).toBeLessThan(BIG.length);
    expect(page.bytes_scanned * 19_000).toBeLessThanOrEqual(GREP_LIMITS.maxScanWork);
    expect(probes).toBeGreaterThan(0);
    expect(worstMs).toBeLessThan(probeBound(quiet));
    // The cursor resumes where the page stopped: the next pages scan further lines of the same file.
    let cursor = page.next_cursor;
    const cursors = new Set([cursor]);
    for (let i = 0; i < 2; i++) {
      const next = await grep({ pattern: HOSTILE, regex: true, paths: ['big.txt'], after: cursor });
      expect(next.status).toBe(200);
      expect(next.json).toMatchObject({ stopped_at: 'bytes_scanned', has_more: true });
      expect(next.json.bytes_scanned).toBeGreaterThan(0);
      cursor = next.json.next_cursor;
      expect(cursors.has(cursor)).toBe(false);
      cursors.add(cursor);
    }
    // Each page costs a grep thread about 2 s of work (longer on a loaded machine): a generous timeout.
  }, 180_000);

  it('names a line no request could afford and searches the rest of the file', async () => {
    const r = await grep({ pattern: `${HOSTILE}|tail`, regex: true, paths: ['wide.txt'] });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.skipped_lines).toEqual([{ path: 'wide.txt', line_number: 1 }]);
    expect(r.json.matches.map((m) => [m.line_number, m.column_start])).toEqual([[2, 1]]);
    expect(r.json).toMatchObject({ stopped_at: null, has_more: false });
  });

  it('keeps ordinary searches whole: exact text over every file in one page', async () => {
    const r = await grep({ pattern: 'needle' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ stopped_at: null, skipped_lines: [], matches: [{ path: 'small.js', line_number: 1, column_start: 7 }] });
  });
});

describe('patterns PostgreSQL cannot take', () => {
  it('answers a NUL in the pattern with 400 VALIDATION_ERROR naming it (exact text and regex alike)', async () => {
    for (const body of [{ pattern: 'a\u0000b' }, { pattern: 'a\u0000', regex: true }, { pattern: 'A\u0000', case_sensitive: false }]) {
      const r = await grep(body);
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      expect(r.json).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(r.json.detail).toMatch(/NUL/);
    }
  });

  it('scans without the index a repetition count PostgreSQL refuses (over 255) and RE2 takes', async () => {
    const r = await grep({ pattern: 'a{256}', regex: true });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({ index_narrowed: false, stopped_at: null });
    expect(r.json.matches.map((m) => [m.path, m.column_start, m.column_end])).toEqual([['aaa.txt', 1, 257]]);
  });
});

describe('grep-scan: stopping inside a file', () => {
  it('stops at the clock between chunks of lines, and the pages it resumes find every match once', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `${i % 7 === 0 ? 'needle ' : ''}${'x'.repeat(80)} ${i}`).join('\n');
    const matcher = compileMatcher({ pattern: 'needle', regex: true, caseSensitive: true });
    // A clock that moves a second per reading: every chunk after the first finds the page late.
    let clock = 0;
    const now = (): number => (clock += 1000);
    const budget = { timeMs: 500, bytes: GREP_LIMITS.maxBytesScanned, work: GREP_LIMITS.maxScanWork, started: false };
    const found: number[] = [];
    let from: ScanFrom | null = null;
    let pages = 0;
    for (; pages < 100; pages++) {
      const scan = scanBatch(matcher, matcher.programSize, { files: [{ path: 'a.txt', text, from }], contextLines: 0, room: 1000, budget }, now);
      const file = scan.files[0];
      if (file === undefined) throw new Error('no file scanned');
      found.push(...file.matches.map((m) => m.line_number));
      if (file.stop === null) break;
      expect(file.stop).toBe('time');
      expect(file.next?.line).toBeGreaterThan(from?.line ?? 1);
      from = file.next;
    }
    expect(pages).toBeGreaterThan(2);
    expect(found).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1).filter((n) => (n - 1) % 7 === 0));
  });
});
