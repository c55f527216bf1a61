import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS_PATH, type JobSnapshot } from '../../src/jobs/snapshot.js';
import { LogWatcher, spawnCli, stopChild } from '../helpers/cli.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { startJobsHarness, workerCliEnv, type JobsHarness } from '../helpers/jobs.js';
import { SseClient } from '../helpers/sse.js';

/**
 * Worker metrics reach the API's `/metrics` with no ops port per worker (they are published to
 * Redis), and every family of the exposition follows Prometheus's naming rules as promtool
 * checks them.
 */

const OPS_TOKEN = 'ops-token-for-the-fleet-tests-0123456789';

let h: JobsHarness;
let base: string;
let token: string;

beforeAll(async () => {
  h = await startJobsHarness({ OPS_TOKEN });
  base = await h.listen();
  token = await h.token('fleet');
});
afterAll(() => h.close());

async function scrape(): Promise<string> {
  const res = await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${OPS_TOKEN}` } });
  expect(res.statusCode).toBe(200);
  return res.body;
}

function sample(text: string, name: string, labels: Record<string, string>): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = /\{(.*)\}/.exec(line)?.[1] ?? '';
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return null;
}

/** Scrapes until `done` accepts the exposition (a worker publishes every 100 ms here). */
async function scrapeUntil(done: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const text = await scrape();
    if (done(text) || Date.now() > deadline) return text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** promtool's `check metrics` naming rules, for each `# TYPE` line of a text exposition. */
function promtoolProblems(text: string): string[] {
  const problems: string[] = [];
  const help = new Set(text.split('\n').filter((l) => l.startsWith('# HELP ')).map((l) => l.split(' ')[2]));
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('# TYPE ')) continue;
    const [, , name = '', type = ''] = line.split(' ');
    if (seen.has(name)) problems.push(`${name}: declared twice`);
    seen.add(name);
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) problems.push(`${name}: not a valid metric name`);
    if (!help.has(name)) problems.push(`${name}: no HELP`);
    if (type === 'counter' && !name.endsWith('_total')) problems.push(`${name}: counter metrics should have "_total" suffix`);
    if (type !== 'counter' && /_(total|count|sum|bucket)$/.test(name)) problems.push(`${name}: non-counter metrics should not have "${/_[a-z]+$/.exec(name)?.[0] ?? ''}" suffix`);
    if (/_(milliseconds|millis|microseconds|kilobytes|megabytes)(_|$)/.test(name)) problems.push(`${name}: use base units`);
  }
  return problems;
}

describe('metrics of the fleet', () => {
  // A worker process from source starts slowly on a loaded machine.
  it('shows a worker process’s job counts on the API’s /metrics, and drops them when the worker stops', { timeout: 120_000 }, async () => {
    const worker = spawnCli(['worker'], workerCliEnv(h, { METRICS_PUBLISH_INTERVAL_MS: '100' }));
    const logs = new LogWatcher(worker);
    try {
      await logs.waitFor((l) => l['msg'] === 'worker started');
      const submitted = await h.app.inject({ method: 'POST', url: JOBS_PATH, headers: { authorization: `Bearer ${token}` }, payload: { format: 'text', files: SMALL_NPM() } });
      const job = submitted.json<JobSnapshot>();
      const stream = new SseClient(`${base}${JOBS_PATH}/${job.id}/events`, token);
      await stream.ended;
      expect(stream.snapshots().at(-1)?.state).toBe('succeeded');

      const text = await scrapeUntil((t) => sample(t, 'pkgscope_jobs_finished_total', { process: 'worker', outcome: 'completed' }) === 1);
      expect(sample(text, 'pkgscope_jobs_finished_total', { process: 'worker', outcome: 'completed' })).toBe(1);
      // The API's own series are there too, each family once.
      expect(sample(text, 'pkgscope_process_cpu_user_seconds_total', { process: 'api' })).not.toBeNull();
      expect(sample(text, 'pkgscope_process_cpu_user_seconds_total', { process: 'worker' })).not.toBeNull();
      expect(promtoolProblems(text)).toEqual([]);

      expect(await stopChild(worker, 'SIGTERM')).toBe(0);
      const after = await scrape();
      expect(sample(after, 'pkgscope_jobs_finished_total', { process: 'worker' })).toBeNull();
    } finally {
      await stopChild(worker, 'SIGKILL');
    }
  });

  it('names every family as promtool requires (no gauge ending in _total)', async () => {
    const text = await scrape();
    expect(text).not.toMatch(/^pkgscope_nodejs_active_handles_total/m);
    expect(text).toMatch(/^# TYPE pkgscope_nodejs_active_handles gauge$/m);
    expect(promtoolProblems(text)).toEqual([]);
  });
});
