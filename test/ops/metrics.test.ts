import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import { apiOpsRoutes } from '../../src/processes/routes.js';
import { startOpsServer } from '../../src/processes/ops-server.js';
import { JOBS_PATH } from '../../src/jobs/snapshot.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { SseClient } from '../helpers/sse.js';
import { freePort } from '../helpers/cli.js';

const OPS_TOKEN = 'ops-token-for-the-tests-0123456789';

/** The value of one sample of the exposition (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = /\{(.*)\}/.exec(line)?.[1] ?? '';
    if (wanted.every(([k, v]) => labelText.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

let h: JobsHarness;
let token: string;
const bearer = { authorization: `Bearer ${OPS_TOKEN}` };

beforeAll(async () => {
  h = await startJobsHarness({ OPS_TOKEN });
  token = await h.token('metrics');
});
afterAll(() => h.close());

async function scrape(): Promise<string> {
  const res = await h.app.inject({ method: 'GET', url: '/metrics', headers: bearer });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.body;
}

async function submit(): Promise<JobSnapshot> {
  const res = await h.app.inject({ method: 'POST', url: JOBS_PATH, headers: { authorization: `Bearer ${token}` }, payload: { format: 'cyclonedx', files: SMALL_NPM() } });
  expect(res.statusCode).toBe(202);
  return res.json<JobSnapshot>();
}

describe('ops authentication on the API port', () => {
  it('refuses the metrics and the dashboard without the ops token, and an API token is not one', async () => {
    for (const url of ['/metrics', '/ops/queues', '/ops/queues/api/queues']) {
      const res = await h.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="pkgscope-ops"/);
      expect(res.json()).toMatchObject({ code: 'AUTHENTICATION_REQUIRED' });
      const withApiToken = await h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      expect(withApiToken.statusCode, url).toBe(401);
    }
  });

  it('serves the queue dashboard (Basic auth, as browsers send it), read-only', async () => {
    const basic = { authorization: `Basic ${Buffer.from(`ops:${OPS_TOKEN}`).toString('base64')}` };
    const page = await h.app.inject({ method: 'GET', url: '/ops/queues', headers: basic });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const queues = await h.app.inject({ method: 'GET', url: '/ops/queues/api/queues', headers: basic });
    expect(queues.statusCode).toBe(200);
    const body = queues.json<{ queues: { name: string; readOnlyMode: boolean }[] }>();
    expect(body.queues.map((q) => q.name).sort()).toEqual(['crawl', 'inventory', 'maintenance', 'sbom']);
    expect(body.queues.every((q) => q.readOnlyMode)).toBe(true);
    const retry = await h.app.inject({ method: 'PUT', url: '/ops/queues/api/queues/sbom/retry/failed', headers: basic });
    expect(retry.statusCode).toBeGreaterThanOrEqual(400);
  });
});

describe('metrics', () => {
  it('move as requests are served, jobs wait and run, and event streams open and close', async () => {
    const before = await scrape();
    expect(sample(before, 'pkgscope_http_request_duration_seconds_count', { route: '/v1/experimental/lockfile-jobs', status_code: '202' })).toBe(0);

    // A job waits: queue depth and the age of the oldest waiting job.
    const job = await submit();
    const waiting = await scrape();
    expect(sample(waiting, 'pkgscope_http_request_duration_seconds_count', { route: '/v1/experimental/lockfile-jobs', status_code: '202' })).toBe(1);
    expect(sample(waiting, 'pkgscope_queue_jobs', { queue: 'sbom', state: 'waiting' })).toBe(1);
    expect(sample(waiting, 'pkgscope_queue_oldest_waiting_age_seconds', { queue: 'sbom' })).toBeGreaterThanOrEqual(0);
    expect(waiting).toContain('pkgscope_queue_oldest_waiting_age_seconds{queue="sbom",process="api"}');
    expect(sample(waiting, 'pkgscope_queue_workers', { queue: 'sbom' })).toBe(0);

    const base = await h.listen();
    const stream = new SseClient(`${base}${JOBS_PATH}/${job.id}/events`, token);
    await stream.waitFor((s) => s.state === 'queued');
    expect(sample(await scrape(), 'pkgscope_sse_streams_open')).toBe(1);

    const workers = await h.startWorkers();
    try {
      const done = await stream.waitFor((s) => s.state === 'succeeded' || s.state === 'failed');
      expect(done.state).toBe('succeeded');
      await stream.ended;
      const after = await scrape();
      expect(sample(after, 'pkgscope_sse_streams_open')).toBe(0);
      expect(sample(after, 'pkgscope_queue_workers', { queue: 'sbom' })).toBeGreaterThanOrEqual(1);
      expect(sample(after, 'pkgscope_queue_jobs', { queue: 'sbom', state: 'waiting' })).toBe(0);

      // The worker's own metrics: phases, outcomes, registry requests and the enrichment cache.
      const worker = await workers.metrics.scrape();
      for (const phase of ['resolving', 'enriching', 'rendering']) {
        expect(sample(worker, 'pkgscope_job_phase_duration_seconds_count', { phase }), phase).toBe(1);
      }
      expect(sample(worker, 'pkgscope_jobs_finished_total', { outcome: 'completed', code: 'none' })).toBe(1);
      const fetched = sample(worker, 'pkgscope_registry_request_duration_seconds_count', { outcome: 'ok' });
      expect(fetched).toBeGreaterThan(0);
      expect(sample(worker, 'pkgscope_enrichment_cache_lookups_total', { result: 'miss' })).toBe(fetched);
      expect(sample(worker, 'pkgscope_enrichment_cache_hit_ratio')).toBe(0);
      expect(worker).toContain('process="worker"');

      // The same lockfile again: every coordinate comes from the cache now.
      const again = await submit();
      const second = new SseClient(`${base}${JOBS_PATH}/${again.id}/events`, token);
      expect((await second.waitFor((s) => s.state === 'succeeded' || s.state === 'failed')).state).toBe('succeeded');
      const warm = await workers.metrics.scrape();
      expect(sample(warm, 'pkgscope_enrichment_cache_lookups_total', { result: 'hit' })).toBe(fetched);
      expect(sample(warm, 'pkgscope_enrichment_cache_hit_ratio')).toBeCloseTo(0.5);
      expect(sample(warm, 'pkgscope_registry_request_duration_seconds_count', { outcome: 'ok' })).toBe(fetched);
      expect(sample(warm, 'pkgscope_jobs_finished_total', { outcome: 'completed', code: 'none' })).toBe(2);
    } finally {
      await workers.close();
    }
  });
});

describe('a separate ops port', () => {
  it('serves metrics there without a token when none is set, and not on the API port', async () => {
    const port = await freePort();
    const config = { ...h.config, ops: { ...h.config.ops, port, token: null } };
    const ops = await startOpsServer(config, h.database, h.logger, apiOpsRoutes(config, h.services));
    try {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('pkgscope_http_request_duration_seconds');
      expect((await fetch(`http://127.0.0.1:${port}/ops/queues/api/queues`)).status).toBe(200);
    } finally {
      await ops?.close();
    }
  });
});
