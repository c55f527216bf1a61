import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListResponseType } from '../../src/routes/inventory/schemas.js';
import { InventoryIndex, type StoredEntry } from '../../src/inventory/query/query.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startFixtureRegistry, type FixtureRegistry } from '../helpers/registry.js';
import { LatencyProbe, responsiveBound, rssOf } from '../helpers/responsiveness.js';
import { startApi, startService, type ApiClient, type ServiceEnv, type ServiceProcess } from '../helpers/service-processes.js';
import { REDIS_URL } from '../helpers/services.js';
import { makeTarball } from '../helpers/tarball.js';

/**
 * Hostile paths through the real processes (issue #29, items 3 and 10): a 305-byte tarball whose
 * one entry is `a/` × 20,000 deep made the API hold 0.8 GB per package; a 1 MB file name failed
 * its preparation with internal_error and a 6 MB log line. Both are skipped at extraction now,
 * noted, and the API stays responsive with bounded memory.
 */

const DEEP = `package/${'a/'.repeat(20_000)}x.js`;
const LONG = `package/${'n'.repeat(1024 * 1024)}.js`;
const MB = 1024 * 1024;

let database: TestDatabase;
let registry: FixtureRegistry;
let api: ServiceProcess & ApiClient;
let worker: ServiceProcess;

beforeAll(async () => {
  const [deep, long, tiny] = await Promise.all([
    makeTarball([{ name: DEEP, content: 'x;\n' }, { name: 'package/index.js', content: '1;\n' }]),
    makeTarball([{ name: LONG, content: 'x;\n' }, { name: 'package/index.js', content: '1;\n' }]),
    makeTarball([{ name: 'package/index.js', content: 'tiny;\n' }]),
  ]);
  registry = await startFixtureRegistry({
    packages: {
      deep: { versions: { '1.0.0': { _tarball: deep } } },
      longname: { versions: { '1.0.0': { _tarball: long } } },
      tiny: { versions: { '1.0.0': { _tarball: tiny } } },
    },
  });
  database = await createTestDatabase();
  const service: ServiceEnv = {
    databaseUrl: database.url,
    redisUrl: REDIS_URL,
    redisPrefix: `pkgscope-test-${randomBytes(4).toString('hex')}`,
    registryUrl: registry.url,
  };
  api = await startApi(service);
  worker = await startService('worker', service);
}, 120_000);

afterAll(async () => {
  await api.stop();
  await worker.stop();
  await registry.close();
  await database.drop();
});

async function listOk(body: Record<string, unknown>): Promise<ListResponseType> {
  const res = await api.request('/v1/list', { method: 'POST', body: JSON.stringify(body) });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as ListResponseType;
}

async function readyPaths(target: string): Promise<string[]> {
  const page = await listOk({ target, recursive: true, wait_timeout_ms: 60_000, limit: 100 });
  expect(page.indexing_status, JSON.stringify(page)).toBe('indexed');
  return page.entries.map((e) => e.path);
}

/** Probes the API (`/healthz` and a small list) and its resident memory while `work` runs. */
async function whileProbed<T>(work: () => Promise<T>): Promise<{ value: T; slowest: number; baseline: number; rssGrowth: number }> {
  let peak = 0;
  const probe = new LatencyProbe([
    async () => expect((await fetch(`${api.base}/healthz`)).status).toBe(200),
    async () => expect((await listOk({ target: 'npm:tiny@1.0.0', limit: 1 })).entries).toHaveLength(1),
    () => Promise.resolve((peak = Math.max(peak, rssOf(api.child.pid ?? 0)))),
  ]);
  const baseline = await probe.baseline();
  const before = rssOf(api.child.pid ?? 0);
  probe.start();
  let value: T;
  try {
    value = await work();
  } finally {
    await probe.stop().catch(() => undefined);
  }
  const { slowest, probes } = await probe.stop();
  expect(probes).toBeGreaterThan(0);
  return { value, slowest, baseline, rssGrowth: Math.max(peak, rssOf(api.child.pid ?? 0)) - before };
}

describe('hostile paths in package archives', () => {
  it('skips an entry 20,000 folders deep: listed without it, the API responsive and its memory bounded', async () => {
    expect(await readyPaths('npm:tiny@1.0.0')).toEqual(['index.js']);
    const run = await whileProbed(async () => {
      const paths = await readyPaths('npm:deep@1.0.0');
      // Browsing the top folder again reads the kept index, not a rebuilt one.
      await listOk({ target: 'npm:deep@1.0.0' });
      return paths;
    });
    expect(run.value).toEqual(['index.js']);
    expect(run.rssGrowth).toBeLessThan(100 * MB);
    expect(run.slowest).toBeLessThan(responsiveBound(run.baseline));
    const skipped = await database.pool.query<{ skipped: string[] }>("SELECT facts->'skipped' AS skipped FROM inventories WHERE identity = 'npm:deep@1.0.0'");
    const notes = skipped.rows[0]?.skipped ?? [];
    expect(notes.some((n) => n.includes('path longer than 2048 bytes'))).toBe(true);
    expect(Math.max(...notes.map((n) => n.length))).toBeLessThan(400);
  });

  it('skips a 1 MB file name instead of failing the preparation, and logs no long value nor query string', async () => {
    const run = await whileProbed(() => readyPaths('npm:longname@1.0.0'));
    expect(run.value).toEqual(['index.js']);
    expect(run.slowest).toBeLessThan(responsiveBound(run.baseline));
    // A read naming a long path (as long as a request line may be) answers 404 and logs the route path only.
    const res = await api.request(`/v1/read?${new URLSearchParams({ target: 'npm:longname@1.0.0', path: `${'n'.repeat(12_000)}.js` }).toString()}`);
    expect(res.status).toBe(404);
    const line = await api.logs.waitFor((l) => l['msg'] === 'request completed' && (l['res'] as { statusCode?: number } | undefined)?.statusCode === 404);
    expect((line['req'] as { url: string }).url).toBe('/v1/read');
    for (const logs of [api.logs, worker.logs]) expect(Math.max(...logs.lines.map((l) => JSON.stringify(l).length))).toBeLessThan(16_384);
  });

  it('builds the folders of a deep path as views of its own key, not a copy per ancestor', async () => {
    // The index itself, given a path the extraction bounds would refuse: memory linear in the path.
    const entry: StoredEntry = { path: `${'a/'.repeat(20_000)}x.js`, kind: 'file', byteSize: 1, lineCount: 1, contentHash: null, language: null, fileType: null, intent: null, title: null };
    const before = process.memoryUsage();
    const index = new InventoryIndex([entry]);
    const after = process.memoryUsage();
    expect(index.isDirectory('a/a/a')).toBe(true);
    expect((await index.page({ paths: ['a'], recursive: false, fileTypes: [], languages: [], intents: [], limit: 10 }, null)).entries).toEqual([{ path: 'a/a', kind: 'directory' }]);
    expect(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers).toBeLessThan(100 * MB);
  });
});
