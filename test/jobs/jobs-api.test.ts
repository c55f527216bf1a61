import * as CDX from '@cyclonedx/cyclonedx-library';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockfileJobInputs, lockfileJobs } from '../../src/db/schema/index.js';
import { PHASES_OF_STATE, type JobSnapshot } from '../../src/jobs/snapshot.js';
import { spdxProblems } from '../../src/sbom/validate/spdx.js';
import type { InputFile } from '../../src/model/types.js';
import { UUID } from '../helpers/app.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { officialSpdxSchema } from '../helpers/spdx-schema.js';
import { SseClient } from '../helpers/sse.js';


let h: JobsHarness;
let token: string;
let base: string;

beforeAll(async () => {
  h = await startJobsHarness();
  token = await h.token('owner');
  base = await h.listen();
});
afterAll(() => h.close());

const JOBS = '/v1/experimental/lockfile-jobs';

async function submit(body: unknown, headers: Record<string, string> = {}, as = token) {
  return h.app.inject({
    method: 'POST',
    url: JOBS,
    headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

function get(url: string, as = token) {
  return h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${as}` } });
}

function expectValidSnapshot(s: JobSnapshot): void {
  expect(s.id).toMatch(UUID);
  expect(s.kind).toBe('sbom');
  expect(PHASES_OF_STATE[s.state]).toContain(s.phase);
  expect(s.result_url).toBe(`${JOBS}/${s.id}/result`);
  expect(Number.isNaN(Date.parse(s.expires_at))).toBe(false);
  expect(s.error === null || s.state === 'failed').toBe(true);
}


describe('lockfile jobs end to end', () => {
  it.each(['cyclonedx', 'spdx', 'text'] as const)('runs a %s job: snapshots over SSE, then the result', async (format) => {
    const res = await submit({ format, files: SMALL_NPM() });
    expect(res.statusCode).toBe(202);
    const created = res.json<JobSnapshot>();
    expect(res.headers['location']).toBe(`${JOBS}/${created.id}`);
    expect(created).toMatchObject({ state: 'queued', phase: 'queued', attempt: 0, revision: 0, format, error: null, counts: {} });
    expectValidSnapshot(created);

    // Connected before the job runs: the first event is the current (queued) snapshot.
    const stream = new SseClient(`${base}${JOBS}/${created.id}/events`, token);
    const first = JSON.parse((await stream.event(0)).data) as JobSnapshot;
    expect(first.state).toBe('queued');
    expect(stream.status).toBe(200);
    expect(stream.headers?.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers?.get('cache-control')).toBe('no-store');
    expect(stream.headers?.get('x-request-id')).toMatch(UUID);

    const workers = await h.startWorkers();
    await stream.ended;
    await workers.close();
    const snapshots = stream.snapshots();
    snapshots.forEach(expectValidSnapshot);
    for (let i = 1; i < snapshots.length; i++) expect(snapshots[i]!.revision).toBeGreaterThanOrEqual(snapshots[i - 1]!.revision);
    expect(stream.events.every((e, i) => e.event === 'snapshot' && e.id === String(snapshots[i]!.revision))).toBe(true);
    const last = snapshots.at(-1)!;
    expect(last).toMatchObject({ state: 'succeeded', phase: 'succeeded', attempt: 1, error: null });
    expect(last.counts).toMatchObject({
      manifests_total: 1,
      manifests_done: 1,
      resolved: 83,
      coordinates_total: 82,
      coordinates_done: 82,
      fetch_failed: 0,
    });
    // The first job fetches every coordinate from the registry; later ones find them cached.
    expect((last.counts.fetched ?? 0) + (last.counts.cached ?? 0)).toBe(82);
    // Phases arrive in order; a phase that passed within one progress interval may not show.
    const order = ['queued', 'resolving', 'enriching', 'rendering', 'succeeded'];
    const seen = snapshots.map((s) => order.indexOf(s.phase));
    expect(seen.every((rank, i) => rank >= 0 && (i === 0 || rank >= seen[i - 1]!))).toBe(true);

    const status = await get(`${JOBS}/${created.id}`);
    expect(status.json()).toEqual(last);

    const result = await h.app.inject({
      method: 'GET',
      url: last.result_url,
      headers: { authorization: `Bearer ${token}`, accept: 'text/html' },
    });
    expect(result.statusCode).toBe(200);
    if (format === 'cyclonedx') {
      expect(result.headers['content-type']).toBe('application/vnd.cyclonedx+json; version=1.7');
      const validator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7);
      expect(await validator.validate(result.body)).toBeNull();
      expect(result.json()).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.7', version: 1 });
    } else if (format === 'spdx') {
      expect(result.headers['content-type']).toBe('application/spdx+json');
      expect(officialSpdxSchema(result.json())).toBe(true);
      expect(spdxProblems(result.json())).toEqual({ schema: [], content: [] });
    } else {
      expect(result.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(result.body).toMatch(/^pkgscope inventory\n/);
      expect(result.body).toMatch(/\nnpm +express +4\.21\.2 +MIT +required +node_modules\/express\n/);
    }
  });

  it('accepts multipart uploads with paths in filenames', async () => {
    const files = SMALL_NPM();
    const boundary = '----pkgscope-test';
    const parts = [
      `--${boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\ntext\r\n`,
      ...files.map(
        (f) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="app/${f.path}"\r\n` +
          `Content-Type: application/json\r\n\r\n${f.content}\r\n`,
      ),
      `--${boundary}--\r\n`,
    ];
    const res = await h.app.inject({
      method: 'POST',
      url: JOBS,
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: parts.join(''),
    });
    expect(res.statusCode).toBe(202);
    const job = res.json<JobSnapshot>();
    expect(job.format).toBe('text');
    const [inputs] = await h.database.db.select().from(lockfileJobInputs).where(eq(lockfileJobInputs.jobId, job.id));
    expect(inputs?.files.map((f) => f.path)).toEqual(['app/package.json', 'app/package-lock.json']);
    expect(inputs?.files[1]?.content).toBe(files[1]?.content);
  });
});

describe('submit validation', () => {
  const valid = (): InputFile[] => [{ path: 'package.json', content: '{"name":"a","version":"1.0.0"}' }];
  const rejected = async (body: unknown, pattern: RegExp, headers: Record<string, string> = {}) => {
    const res = await submit(body, headers);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', instance: res.headers['x-request-id'] });
    expect(res.json<{ detail: string }>().detail).toMatch(pattern);
  };

  it.each([
    ['an unknown format', { format: 'xml', files: [{ path: 'a', content: '' }] }, /format must be one of/],
    ['no files', { format: 'text', files: [] }, /files must have at least 1/],
    ['missing files', { format: 'text' }, /files is required/],
    ['a null content', { format: 'text', files: [{ path: 'a', content: null }] }, /files\[0\]\.content/],
    ['an unknown property', { format: 'text', files: [], extra: 1 }, /extra/],
    ['an absolute path', { format: 'text', files: [{ path: '/etc/passwd', content: '' }] }, /"\/etc\/passwd" must be relative/],
    ['a .. segment', { format: 'text', files: [{ path: 'a/../b', content: '' }] }, /"a\/..\/b" must not contain \.\./],
    ['a backslash', { format: 'text', files: [{ path: 'a\\b', content: '' }] }, /must use \/ as the separator/],
    ['an empty segment', { format: 'text', files: [{ path: 'a//b', content: '' }] }, /empty or \. segments/],
    [
      'a duplicate path',
      { format: 'text', files: [{ path: 'a', content: '' }, { path: 'a', content: 'x' }] },
      /"a" is uploaded twice/,
    ],
    ['a lone surrogate', { format: 'text', files: [{ path: 'bad.json', content: 'x\ud800y' }] }, /"bad.json" is not valid UTF-8/],
  ])('rejects %s', async (_name, body, pattern) => {
    await rejected(body, pattern);
  });

  it('rejects more than 500 files', async () => {
    const files = Array.from({ length: 501 }, (_, i) => ({ path: `f${i}`, content: '' }));
    await rejected({ format: 'text', files }, /at most 500 items/);
  });

  it('rejects a file over 10 MiB and uploads over 32 MiB, naming the file', async () => {
    await rejected({ format: 'text', files: [{ path: 'big.json', content: 'x'.repeat(10 * 1024 * 1024 + 1) }] }, /"big.json" is larger than 10485760 bytes/);
    const nine = 'x'.repeat(9 * 1024 * 1024);
    const files = [0, 1, 2, 3].map((i) => ({ path: `p${i}`, content: nine }));
    await rejected({ format: 'text', files }, /larger than 33554432 bytes/);
  });

  it('rejects non-UTF-8 multipart content, naming the file', async () => {
    const boundary = 'b0undary';
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\ntext\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="latin1.lock"\r\n\r\n`),
      Buffer.from([0x63, 0x61, 0x66, 0xe9]),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await h.app.inject({
      method: 'POST',
      url: JOBS,
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', detail: 'File "latin1.lock" is not valid UTF-8 text.' });
  });

  it.each([
    ['too long', { 'idempotency-key': 'k'.repeat(256) }],
    ['not printable', { 'idempotency-key': 'caf\u00e9' }],
    ['empty', { 'idempotency-key': '' }],
  ])('rejects an Idempotency-Key that is %s', async (_name, headers) => {
    await rejected({ format: 'text', files: valid() }, /Idempotency-Key/, headers);
  });

  it('requires the sbom capability', async () => {
    const lister = await h.token('lister-only');
    await h.database.db.execute(sql`UPDATE accounts SET capabilities = '{list}' WHERE name = 'lister-only'`);
    const res = await submit({ format: 'text', files: valid() }, {}, lister);
    expect(res.statusCode).toBe(403);
  });
});

describe('idempotency', () => {
  const body = { format: 'text', files: [{ path: 'package.json', content: '{"name":"idem","version":"1.0.0"}' }] };

  it('returns the existing job for the same key and body, 409 for another body', async () => {
    const first = await submit(body, { 'idempotency-key': 'key-1' });
    const again = await submit(body, { 'idempotency-key': 'key-1' });
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(202);
    expect(again.json<JobSnapshot>().id).toBe(first.json<JobSnapshot>().id);
    expect(again.headers['location']).toBe(first.headers['location']);

    const other = await submit({ ...body, format: 'spdx' }, { 'idempotency-key': 'key-1' });
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });

    const count = await h.database.db.select().from(lockfileJobs).where(eq(lockfileJobs.idempotencyKey, 'key-1'));
    expect(count).toHaveLength(1);
  });

  it('keeps keys per account and frees the key of an expired job', async () => {
    const other = await h.token('someone');
    const mine = await submit(body, { 'idempotency-key': 'shared-key' });
    const theirs = await submit(body, { 'idempotency-key': 'shared-key' }, other);
    expect(theirs.json<JobSnapshot>().id).not.toBe(mine.json<JobSnapshot>().id);

    const id = mine.json<JobSnapshot>().id;
    await h.database.db.execute(sql`UPDATE lockfile_jobs SET expires_at = now() - interval '1 second' WHERE id = ${id}`);
    const fresh = await submit(body, { 'idempotency-key': 'shared-key' });
    expect(fresh.statusCode).toBe(202);
    expect(fresh.json<JobSnapshot>().id).not.toBe(id);
  });

  it('gives concurrent submissions with one key one job', async () => {
    const responses = await Promise.all(Array.from({ length: 8 }, () => submit(body, { 'idempotency-key': 'race' })));
    expect(new Set(responses.map((r) => r.json<JobSnapshot>().id)).size).toBe(1);
  });
});

describe('status, result and not-found', () => {
  it('answers missing, malformed, expired and other-owner jobs with the same 404', async () => {
    // An account that never polled through this API: its job is not kept in the status cache,
    // so its first poll after the expiry below reads Postgres.
    const owner = await h.token('expiring-owner');
    const job = (await submit({ format: 'text', files: SMALL_NPM() }, {}, owner)).json<JobSnapshot>();
    const stranger = await h.token('stranger');
    const strip = (body: string) => {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      delete parsed['instance'];
      return parsed;
    };
    const missingId = '00000000-0000-4000-8000-000000000000';
    for (const suffix of ['', '/result', '/events']) {
      const other = await get(`${JOBS}/${job.id}${suffix}`, stranger);
      const missing = await get(`${JOBS}/${missingId}${suffix}`);
      const malformed = await get(`${JOBS}/not-a-uuid${suffix}`);
      for (const res of [other, missing, malformed]) {
        expect(res.statusCode).toBe(404);
        expect(res.headers['content-type']).toBe(missing.headers['content-type']);
        expect(strip(res.body)).toEqual(strip(missing.body));
        expect(res.json()).toMatchObject({ code: 'JOB_NOT_FOUND', instance: res.headers['x-request-id'] });
      }
    }
    await h.database.db.execute(sql`UPDATE lockfile_jobs SET expires_at = now() - interval '1 second' WHERE id = ${job.id}`);
    for (const suffix of ['', '/result', '/events']) {
      const expired = await get(`${JOBS}/${job.id}${suffix}`, owner);
      expect(expired.statusCode).toBe(404);
      expect(strip(expired.body)).toEqual(strip((await get(`${JOBS}/${missingId}${suffix}`)).body));
    }
  });

  it('answers 409 ANALYSIS_PENDING before the job finished', async () => {
    const job = (await submit({ format: 'text', files: SMALL_NPM() })).json<JobSnapshot>();
    const res = await get(job.result_url);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'ANALYSIS_PENDING', instance: res.headers['x-request-id'] });
  });
});
