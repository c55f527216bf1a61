import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockfileJobInputs, lockfileJobResults, lockfileJobs } from '../../src/db/schema/index.js';
import { expireJobs } from '../../src/jobs/maintenance.js';
import type { Analyze } from '../../src/jobs/runner.js';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { sbomRoutes } from '../../src/routes/sbom.js';
import { analyze } from '../../src/sbom/analyze.js';
import { TransientAnalysisError } from '../../src/model/types.js';
import { testConfig } from '../helpers/app.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { SseClient } from '../helpers/sse.js';

let h: JobsHarness;
let token: string;
let base: string;

beforeAll(async () => {
  h = await startJobsHarness();
  token = await h.token('failures');
  base = await h.listen();
});
afterAll(() => h.close());

const JOBS = '/v1/experimental/lockfile-jobs';

async function submit(files = SMALL_NPM(), format = 'cyclonedx'): Promise<JobSnapshot> {
  const res = await h.app.inject({
    method: 'POST',
    url: JOBS,
    headers: { authorization: `Bearer ${token}` },
    payload: { format, files },
  });
  expect(res.statusCode).toBe(202);
  return res.json<JobSnapshot>();
}

/** Follows the job's events to its terminal snapshot. */
async function finished(id: string): Promise<JobSnapshot> {
  const stream = new SseClient(`${base}${JOBS}/${id}/events`, token);
  await stream.ended;
  const last = stream.snapshots().at(-1);
  if (!last) throw new Error('no snapshot received');
  return last;
}

function result(id: string) {
  return h.app.inject({ method: 'GET', url: `${JOBS}/${id}/result`, headers: { authorization: `Bearer ${token}` } });
}

describe('failure codes', () => {
  it('fails with no_manifest_evidence and answers the result with 409 ANALYSIS_FAILED', async () => {
    const workers = await h.startWorkers();
    try {
      const job = await submit([{ path: 'README.md', content: '# hello' }]);
      const last = await finished(job.id);
      expect(last).toMatchObject({ state: 'failed', phase: 'failed', error: 'no_manifest_evidence' });
      const res = await result(job.id);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        code: 'ANALYSIS_FAILED',
        failure_code: 'no_manifest_evidence',
        detail: 'The analysis failed; failure_code tells why.',
        // What was wrong, per uploaded file, kept with the failed job.
        diagnostics: [{ path: 'README.md', reason: 'not_recognised', line: null, column: null, package: null }],
      });
      // The snapshot itself stays a spec code, with no diagnostics in it.
      expect(Object.keys(last)).not.toContain('diagnostics');
    } finally {
      await workers.close();
    }
  });

  it('fails with output_too_large when the document crosses the limit while rendering', async () => {
    const seen: number[] = [];
    const counting: Analyze = async (files, format, deps) => {
      try {
        return await analyze(files, format, deps);
      } finally {
        seen.push(deps.maxOutputBytes ?? -1);
      }
    };
    // A lock far longer than the run: on a loaded machine the harness's 2 s lock lapsed and the
    // job was analysed again, which is not what this test is about.
    const workers = await h.startWorkers({ sbomMaxOutputBytes: 4096, jobLockMs: 30_000 }, counting);
    try {
      const job = await submit();
      expect(await finished(job.id)).toMatchObject({ state: 'failed', error: 'output_too_large' });
      expect(seen).toEqual([4096]);
      const rows = await h.database.db.select().from(lockfileJobResults).where(eq(lockfileJobResults.jobId, job.id));
      expect(rows).toHaveLength(0);
    } finally {
      await workers.close();
    }
  });

  it('fails with execution_record_unavailable when the inputs are gone', async () => {
    const job = await submit();
    await h.database.db.delete(lockfileJobInputs).where(eq(lockfileJobInputs.jobId, job.id));
    const workers = await h.startWorkers();
    try {
      expect(await finished(job.id)).toMatchObject({ state: 'failed', error: 'execution_record_unavailable' });
    } finally {
      await workers.close();
    }
  });

  it('fails with parser_contract_changed for a job accepted under another major version', async () => {
    const job = await submit();
    await h.database.db.update(lockfileJobs).set({ parserContract: '0.9.0' }).where(eq(lockfileJobs.id, job.id));
    const workers = await h.startWorkers();
    try {
      expect(await finished(job.id)).toMatchObject({ state: 'failed', error: 'parser_contract_changed' });
    } finally {
      await workers.close();
    }
  });

  it('fails with execution_failed on an unexpected error, keeping diagnostics out of the snapshot', async () => {
    const broken: Analyze = async () => {
      throw new Error('internal path /srv/secret exploded');
    };
    const workers = await h.startWorkers({}, broken);
    try {
      const job = await submit();
      const last = await finished(job.id);
      expect(last).toMatchObject({ state: 'failed', error: 'execution_failed', attempt: 1 });
      expect(JSON.stringify(last)).not.toMatch(/secret|exploded/);
      const res = await result(job.id);
      expect(res.body).not.toMatch(/secret|exploded/);
    } finally {
      await workers.close();
    }
  });

  it('retries a transient failure with backoff, then succeeds', async () => {
    let calls = 0;
    const flaky: Analyze = async (files, format, deps) => {
      calls++;
      if (calls === 1) throw new TransientAnalysisError('registry answered 503');
      return analyze(files, format, deps);
    };
    const workers = await h.startWorkers({}, flaky);
    try {
      const job = await submit();
      const stream = new SseClient(`${base}${JOBS}/${job.id}/events`, token);
      await stream.ended;
      const snapshots = stream.snapshots();
      expect(snapshots.at(-1)).toMatchObject({ state: 'succeeded', attempt: 2 });
      expect(calls).toBe(2);
    } finally {
      await workers.close();
    }
  });

  it('does not retry deterministic failures', async () => {
    let calls = 0;
    const deterministic: Analyze = async (files, format, deps) => {
      calls++;
      return analyze([{ path: 'notes.txt', content: 'x' }], format, deps);
    };
    const workers = await h.startWorkers({}, deterministic);
    try {
      const job = await submit();
      expect(await finished(job.id)).toMatchObject({ state: 'failed', error: 'no_manifest_evidence', attempt: 1 });
      expect(calls).toBe(1);
    } finally {
      await workers.close();
    }
  });
});

describe('expiry sweeper', () => {
  it('deletes expired jobs with their inputs and results, in batches', async () => {
    const workers = await h.startWorkers();
    const done = await submit(SMALL_NPM(), 'text');
    await finished(done.id);
    await workers.close();
    const pending = await submit();
    const keep = await submit();
    await h.database.db.execute(
      sql`UPDATE lockfile_jobs SET expires_at = now() - interval '1 minute' WHERE id IN (${done.id}, ${pending.id})`,
    );
    const deleted = await expireJobs(h.services.store, 1, 10);
    expect(deleted).toBeGreaterThanOrEqual(2);
    const remaining = await h.database.db.select({ id: lockfileJobs.id }).from(lockfileJobs);
    expect(remaining.map((r) => r.id)).toContain(keep.id);
    expect(remaining.map((r) => r.id)).not.toContain(done.id);
    const inputs = await h.database.db.select().from(lockfileJobInputs).where(eq(lockfileJobInputs.jobId, done.id));
    const results = await h.database.db.select().from(lockfileJobResults).where(eq(lockfileJobResults.jobId, done.id));
    expect(inputs).toHaveLength(0);
    expect(results).toHaveLength(0);
  });
});

describe('synchronous SBOM', () => {
  it('answers the document with its media type', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/experimental/sbom',
      headers: { authorization: `Bearer ${token}` },
      payload: { format: 'spdx', files: SMALL_NPM() },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/spdx+json');
    expect(res.json()).toMatchObject({ spdxVersion: 'SPDX-2.3' });
  });

  it('answers 422 ANALYSIS_FAILED with failure_code', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/experimental/sbom',
      headers: { authorization: `Bearer ${token}` },
      payload: { format: 'text', files: [{ path: 'notes.txt', content: 'nothing' }] },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'ANALYSIS_FAILED', failure_code: 'no_manifest_evidence', status: 422 });
  });

  it('answers 504 TIMEOUT past the deadline', async () => {
    const config = testConfig(h.database, { SBOM_SYNC_TIMEOUT_MS: '100' });
    let aborted: boolean | undefined;
    const slow: Analyze = (_files, _format, deps) =>
      new Promise((_resolve, reject) => {
        deps.signal?.addEventListener('abort', () => {
          aborted = true;
          reject(new Error('aborted'));
        });
      });
    const app = await buildApp({
      config,
      database: h.database,
      logger: createLogger('silent'),
      v1Routes: [sbomRoutes({ config, analyze: slow, analysis: {} })],
    });
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/experimental/sbom',
        headers: { authorization: `Bearer ${token}` },
        payload: { format: 'text', files: SMALL_NPM() },
      });
      expect(res.statusCode).toBe(504);
      expect(res.json()).toMatchObject({ code: 'TIMEOUT', instance: res.headers['x-request-id'] });
      expect(aborted).toBe(true);
    } finally {
      await app.close();
    }
  });
});
