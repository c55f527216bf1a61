import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS_PATH, type JobSnapshot } from '../../src/jobs/snapshot.js';
import { freePort } from '../helpers/cli.js';
import { startStreamingHarness, type StreamingHarness } from '../helpers/jobs.js';
import { SseClient } from '../helpers/sse.js';

/**
 * A registry the service cannot connect to (crates.io and PyPI behind a firewall) degrades an
 * analysis, never fails it: the synchronous endpoint answers 200 with the document, a job succeeds
 * on its first attempt, and the document's notice names each host. Neither is a 503 nor a retry.
 */

const CARGO_LOCK = `version = 4\n\n${['anyhow 1.0.86', 'bitflags 2.6.0', 'cfg-if 1.0.0']
  .map((c) => {
    const [name, version] = c.split(' ');
    return `[[package]]\nname = "${name}"\nversion = "${version}"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n`;
  })
  .join('\n')}`;
/** Not pinned: resolving it needs PyPI, which refuses; the pinned one stays a component. */
const PYPROJECT = '[project]\nname = "tool"\nversion = "1.0"\ndependencies = ["requests>=2", "idna==3.7"]\n';
const FILES = [
  { path: 'Cargo.lock', content: CARGO_LOCK },
  { path: 'tool/pyproject.toml', content: PYPROJECT },
];

let s: StreamingHarness;
let crates: string;
beforeAll(async () => {
  crates = `http://127.0.0.1:${await freePort()}`;
  const pypi = `http://127.0.0.1:${await freePort()}`;
  s = await startStreamingHarness('unreachable', { PACKAGE_REGISTRIES: JSON.stringify({ crates, pypi }) });
});
afterAll(async () => {
  await s.close();
});

const auth = (): Record<string, string> => ({ authorization: `Bearer ${s.token}` });

function noticeOf(document: string): string {
  const bom = JSON.parse(document) as { properties?: { name: string; value: string }[] };
  return bom.properties?.find((p) => p.name === 'service:notice')?.value ?? '';
}

function expectDegraded(notice: string): void {
  expect(notice).toContain(`crates registry at ${crates} could not be reached (connection refused): 3 component(s) carry only what the lockfile records.`);
  expect(notice).toContain('tool/pyproject.toml was not resolved (resolution_failed): PyPI could not be reached (connection refused): 1 requirement(s) are not pinned.');
}

describe('an analysis whose registries cannot be reached', () => {
  it('is answered 200 by the synchronous endpoint, with the document and its notice', async () => {
    const res = await s.h.app.inject({ method: 'POST', url: '/v1/experimental/sbom', headers: auth(), payload: { format: 'cyclonedx', files: FILES } });
    expect(res.statusCode, res.body).toBe(200);
    const bom = JSON.parse(res.body) as { components: { name: string }[] };
    expect(bom.components.map((c) => c.name).sort()).toEqual(['anyhow', 'bitflags', 'cfg-if', 'idna']);
    expectDegraded(noticeOf(res.body));
  });

  it('succeeds as a job on its first attempt, with the same notice', async () => {
    const submitted = await s.h.app.inject({ method: 'POST', url: JOBS_PATH, headers: auth(), payload: { format: 'cyclonedx', files: FILES } });
    expect(submitted.statusCode, submitted.body).toBe(202);
    const { id } = submitted.json<JobSnapshot>();
    const workers = await s.h.startWorkers();
    try {
      const events = new SseClient(`${s.base}${JOBS_PATH}/${id}/events`, s.token);
      await events.ended;
      const last = events.snapshots().at(-1);
      expect(last).toMatchObject({ state: 'succeeded', attempt: 1, error: null });
      expect(last?.counts).toMatchObject({ coordinates_total: 4, fetch_failed: 4 });
      const result = await s.h.app.inject({ method: 'GET', url: `${JOBS_PATH}/${id}/result`, headers: auth() });
      expect(result.statusCode).toBe(200);
      expectDegraded(noticeOf(result.body));
    } finally {
      await workers.close();
    }
  });
});
