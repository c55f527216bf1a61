/**
 * The shipped service end to end: `node dist/src/cli.js start` exactly as `npm start` runs it
 * (built, its own process tree, shipped defaults: only the port, the database, the Redis prefix,
 * the token and the registry, git host and site addresses are set), driven over HTTP only. It
 * lists and reads a package of every registry, a repository and a documentation site, and runs a
 * job per lockfile format through JSON and multipart, followed over SSE, its result validated.
 * Everything is started at once, as clients would, and the service stops last.
 *
 * It runs against dist/: when dist/ is older than the sources it builds first (`npm ci` builds, so
 * a clean clone does not). `.ci/run` runs it a second time on Node 24 (the Node running vitest is
 * the one the service runs on).
 */
import * as CDX from '@cyclonedx/cyclonedx-library';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListResponseType, ReadResponseType } from '../../src/routes/inventory/schemas.js';
import { JOBS_PATH, type JobSnapshot } from '../../src/jobs/snapshot.js';
import { spdxProblems } from '../../src/sbom/validate/spdx.js';
import { startAllRegistries, type AllRegistries, type FixtureTarget } from '../helpers/all-registries.js';
import { freePort } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startShippedService, type ShippedService } from '../helpers/shipped-service.js';
import { deleteKeysOnSharedRedis, REDIS_URL } from '../helpers/services.js';
import { officialSpdxSchema } from '../helpers/spdx-schema.js';
import { SseClient } from '../helpers/sse.js';
import { LOCKFILE_SAMPLES, type LockfileSample } from './lockfiles.js';

const OUTPUTS = ['cyclonedx', 'spdx', 'text'] as const;
type Output = (typeof OUTPUTS)[number];
type Encoding = 'json' | 'multipart';

/** Formats rotate over the samples, and each output is sent once as JSON, once as multipart, in turn. */
const JOBS = LOCKFILE_SAMPLES.map((sample, i) => {
  const output: Output = OUTPUTS[i % OUTPUTS.length] ?? 'text';
  const encoding: Encoding = Math.floor(i / OUTPUTS.length) % 2 === 0 ? 'json' : 'multipart';
  return { ...sample, output, encoding };
});

const MEDIA_TYPES: Readonly<Record<Output, string>> = {
  cyclonedx: 'application/vnd.cyclonedx+json; version=1.7',
  spdx: 'application/spdx+json',
  text: 'text/plain; charset=utf-8',
};

/** How long a job may take, a test may wait for its target or job: far beyond what they need, short of a hang. */
const PATIENCE_MS = 150_000;

interface Answer<T> {
  readonly status: number;
  readonly type: string | null;
  readonly body: T;
}

interface Prepared {
  readonly list: Answer<ListResponseType & { code?: string }>;
  readonly read: Answer<ReadResponseType & { code?: string }>;
}

interface JobRun {
  readonly submitted: Answer<JobSnapshot>;
  readonly snapshots: readonly JobSnapshot[];
  readonly result: Answer<string>;
}

type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };
const settle = <T>(work: Promise<T>): Promise<Settled<T>> => work.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));
const unwrap = async <T>(pending: Promise<Settled<T>> | undefined): Promise<T> => {
  const settled = await pending;
  if (settled === undefined) throw new Error('never started (the service did not come up)');
  if (!settled.ok) throw settled.error;
  return settled.value;
};

let fixtures: AllRegistries | null = null;
let database: TestDatabase | null = null;
let service: ShippedService | null = null;
let gitCache = '';
const prefix = `pkgscope-test-e2e-${randomBytes(4).toString('hex')}`;
const prepared = new Map<string, Promise<Settled<Prepared>>>();
const jobs = new Map<string, Promise<Settled<JobRun>>>();

/** An answer with its body: parsed when JSON, the text itself when `raw` (a result document, validated as served). */
async function answer<T>(res: Response, raw = false): Promise<Answer<T>> {
  const type = res.headers.get('content-type');
  const text = await res.text();
  return { status: res.status, type, body: (!raw && type?.includes('json') === true && text !== '' ? JSON.parse(text) : text) as T };
}

const api = (): ShippedService => {
  if (service === null) throw new Error('the service is not running');
  return service;
};

/** Still being prepared: the documented 409, or a page that says so. */
function preparing(list: Answer<ListResponseType & { code?: string }>): boolean {
  if (list.status === 409) return list.body.code === 'TARGET_NOT_READY';
  if (list.status !== 200) return false;
  const page = list.body;
  return page.inventory_kind === 'site' ? page.inventory_state === 'empty' && page.crawl_status !== 'failed' : page.code_index_state === 'pending' || page.code_index_state === 'indexing';
}

/**
 * Lists a target, waiting (wait_timeout_ms, again while it is still being prepared), then reads
 * one file or page, listing again while the read says the target is being prepared (a 409 with
 * its `indexing_ref`; one without is a failed preparation, final). Every loop is bounded: the
 * service's shipped rate limit counts each request.
 */
async function prepare(target: FixtureTarget): Promise<Prepared> {
  const list = async (): Promise<Answer<ListResponseType & { code?: string }>> => {
    const body = JSON.stringify({ target: target.target, recursive: true, limit: 500, wait_timeout_ms: 30_000 });
    let page: Answer<ListResponseType & { code?: string }> | null = null;
    for (let attempt = 0; attempt < 5 && (page === null || preparing(page)); attempt++) {
      page = await answer<ListResponseType & { code?: string }>(await api().request('/v1/list', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
    }
    if (page === null) throw new Error('unreachable');
    return page;
  };
  const listed = await list();
  const query = new URLSearchParams({ target: target.target, path: target.read.path }).toString();
  for (let attempt = 0; ; attempt++) {
    const read = await answer<ReadResponseType & { code?: string; indexing_ref?: string }>(await api().request(`/v1/read?${query}`));
    if (read.status !== 409 || read.body.code !== 'TARGET_NOT_READY' || read.body.indexing_ref === undefined || attempt === 3) return { list: listed, read };
    await list();
  }
}

async function submit(job: (typeof JOBS)[number]): Promise<Answer<JobSnapshot>> {
  if (job.encoding === 'json') {
    const body = JSON.stringify({ format: job.output, files: job.files });
    return answer<JobSnapshot>(await api().request(JOBS_PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
  }
  const form = new FormData();
  form.set('format', job.output);
  for (const file of job.files) form.append('file', new Blob([file.content]), file.path);
  return answer<JobSnapshot>(await api().request(JOBS_PATH, { method: 'POST', body: form }));
}

/** Submits, follows the job's events to the terminal snapshot and the end of the stream, downloads the result. */
async function runJob(job: (typeof JOBS)[number]): Promise<JobRun> {
  const submitted = await submit(job);
  if (submitted.status !== 202) return { submitted, snapshots: [], result: { status: 0, type: null, body: '' } };
  const stream = new SseClient(`${api().base}${JOBS_PATH}/${submitted.body.id}/events`, api().token);
  // Observed at once: a stream that fails before the wait below must not be an unhandled rejection.
  const ended = stream.ended.then(
    () => null,
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  );
  const timer = setTimeout(() => stream.close(), PATIENCE_MS);
  try {
    await stream.waitFor((s) => s.state === 'succeeded' || s.state === 'failed');
    // The server ends the stream after the terminal snapshot.
    const failure = await ended;
    if (failure !== null) throw failure;
  } catch (error) {
    throw new Error(`job ${submitted.body.id}: the events stream (${stream.status}) ended without a terminal snapshot: ${JSON.stringify(stream.snapshots().at(-1) ?? null)}`, { cause: error });
  } finally {
    clearTimeout(timer);
    stream.close();
  }
  const result = await answer<string>(await api().request(submitted.body.result_url), true);
  return { submitted, snapshots: stream.snapshots(), result };
}

/** The service's log lines about a job (shown when it fails: the snapshot carries only a code). */
const logsOf = (id: string): string =>
  (service?.logs.lines ?? [])
    .filter((l) => JSON.stringify(l).includes(id))
    .map((l) => JSON.stringify(l))
    .join('\n');

beforeAll(async () => {
  // Each kept as soon as it exists, so that afterAll stops whatever started.
  await Promise.all([
    startAllRegistries().then((started) => (fixtures = started)),
    createTestDatabase().then((created) => (database = created)),
    mkdtemp(join(tmpdir(), 'pkgscope-e2e-git-')).then((dir) => (gitCache = dir)),
  ]);
  if (fixtures === null || database === null) throw new Error('unreachable');
  const token = `e2e-${randomBytes(16).toString('hex')}`;
  service = await startShippedService(
    { ...fixtures.env, DATABASE_URL: database.url, REDIS_URL, REDIS_PREFIX: prefix, GIT_CACHE_DIR: gitCache },
    token,
    await freePort(),
  );
  for (const target of fixtures.targets) prepared.set(target.source, settle(prepare(target)));
  for (const job of JOBS) jobs.set(job.format, settle(runJob(job)));
}, 300_000);

afterAll(async () => {
  await service?.kill();
  await Promise.allSettled([...prepared.values(), ...jobs.values()]);
  await Promise.all([fixtures?.close(), database?.drop(), gitCache === '' ? undefined : rm(gitCache, { recursive: true, force: true })]);
  // The service's queues and job schedulers stay in Redis after it stops: the test leaves none behind.
  await deleteKeysOnSharedRedis(prefix);
}, 60_000);

const SOURCES = ['npm', 'pypi', 'crates', 'go', 'maven', 'rubygems', 'nuget', 'packagist', 'pub', 'hex', 'git', 'site'];
const sha256 = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('pkgscope start, as shipped', () => {
  it.each(SOURCES)('lists and reads a %s target', async (source) => {
    const target = fixtures?.targets.find((t) => t.source === source);
    expect(target, `no fixture target for ${source}`).toBeDefined();
    const { list, read } = await unwrap(prepared.get(source));
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    if (source === 'site') {
      expect(list.body).toMatchObject({ inventory_kind: 'site', inventory_state: 'available' });
      expect(list.body.entries.map((e) => e.path)).toContain('/');
    } else {
      expect(list.body, JSON.stringify(list.body.target_resolution)).toMatchObject({ inventory_kind: 'source', code_index_state: 'current' });
      const files = list.body.entries.filter((e) => e.kind === 'file').map((e) => [e.path, e.content_hash]);
      expect(files.sort()).toEqual(Object.entries(target?.files ?? {}).map(([path, content]) => [path, sha256(content)]).sort());
    }
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.content).toContain(target?.read.contains);
  }, PATIENCE_MS + 30_000);

  it.each(JOBS.map((j) => [j.format, j.output, j.encoding, j] as const))('runs a %s job to %s, sent as %s', async (_format, output, _encoding, job: LockfileSample) => {
    const { submitted, snapshots, result } = await unwrap(jobs.get(job.format));
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    expect(submitted.body).toMatchObject({ state: 'queued', format: output });
    const id = submitted.body.id;
    const terminal = snapshots.at(-1);
    expect(terminal?.state, `job ${id}: ${JSON.stringify(terminal)}\n${logsOf(id)}`).toBe('succeeded');
    expect(snapshots.every((s, i) => i === 0 || s.revision >= snapshots[i - 1]!.revision)).toBe(true);
    expect(result.status, result.body.slice(0, 2_000)).toBe(200);
    expect(result.type).toBe(MEDIA_TYPES[output]);
    expect(result.body).toContain(job.expect);
    if (output === 'cyclonedx') {
      const validator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7);
      expect(await validator.validate(result.body)).toBeNull();
      expect(JSON.parse(result.body)).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.7' });
    } else if (output === 'spdx') {
      const doc: unknown = JSON.parse(result.body);
      expect(officialSpdxSchema(doc), JSON.stringify(officialSpdxSchema.errors)).toBe(true);
      expect(spdxProblems(doc)).toEqual({ schema: [], content: [] });
    } else {
      expect(result.body).toMatch(/^pkgscope inventory\n/);
    }
  }, PATIENCE_MS + 30_000);

  it('stops on SIGTERM, with both of its children', async () => {
    const running = api();
    expect(await running.stop(), running.stderr()).toBe(0);
    const stopped = running.logs.lines.map((l) => `${String(l['role'])}: ${String(l['msg'])}`);
    expect(stopped).toContain('api: API stopped');
    expect(stopped).toContain('worker: worker stopped');
    const children = running.logs.lines.flatMap((l) => (l['msg'] === 'child started' ? [Number(l['childPid'])] : []));
    expect(children).toHaveLength(2);
    for (const pid of children) expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});
