import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInputs } from '../../src/commands/sbom-inputs.js';
import { JOBS_PATH, type JobSnapshot } from '../../src/jobs/snapshot.js';
import type { InputFile, OutputFormat } from '../../src/model/types.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { startStreamingHarness, type StreamingHarness } from '../helpers/jobs.js';
import { CORPUS_DIR, startRecordedRegistry, type RecordedRegistry } from '../helpers/recorded-registry.js';
import { deleteKeysOnSharedRedis, REDIS_URL } from '../helpers/services.js';
import { startApi, startService, type ApiClient, type ServiceProcess } from '../helpers/service-processes.js';
import { SseClient } from '../helpers/sse.js';

// Go metadata from a port nobody listens on: both paths fail to fetch it the same way, at once.
const REGISTRIES = JSON.stringify({ go: 'http://127.0.0.1:9', pypi: 'http://127.0.0.1:9', crates: 'http://127.0.0.1:9' });

let s: StreamingHarness;
let work: string;
beforeAll(async () => {
  s = await startStreamingHarness('parity', { PACKAGE_REGISTRIES: REGISTRIES });
  work = await mkdtemp(join(tmpdir(), 'pkgscope-parity-'));
});
afterAll(async () => {
  await s.close();
  await rm(work, { recursive: true, force: true });
});

/** The text document without the one line that differs by nature: when it was generated. */
const comparable = (text: string): string => text.replace(/^generated: .*$/m, 'generated: -');

describe('the CLI and a job', () => {
  it('give the same document for the same polyglot upload', async () => {
    const files: InputFile[] = [
      ...(await Promise.all(['package.json', 'package-lock.json'].map(async (n) => ({ path: `web/${n}`, content: await readFile(join(FIXTURES, 'lockfiles/small/npm3', n), 'utf8') })))),
      { path: 'svc/go.mod', content: 'module example.test/svc\n\ngo 1.22\n\nrequire (\n\tgithub.com/google/uuid v1.6.0\n\tgolang.org/x/sys v0.20.0 // indirect\n)\n' },
      { path: 'py/requirements.txt', content: 'six==1.16.0\n' },
    ];
    for (const f of files) {
      await mkdir(dirname(join(work, f.path)), { recursive: true });
      await writeFile(join(work, f.path), f.content);
    }
    const cli = await runCli(['sbom', '--format', 'text', work], {
      npm_config_registry: `${s.h.registry.url}/`,
      XDG_CACHE_HOME: join(work, '.cache'),
      PACKAGE_REGISTRIES: REGISTRIES,
    });
    expect(cli.code, cli.stderr).toBe(0);

    const submitted = await s.h.app.inject({
      method: 'POST',
      url: JOBS_PATH,
      headers: { authorization: `Bearer ${s.token}` },
      payload: { format: 'text', files },
    });
    expect(submitted.statusCode).toBe(202);
    const { id } = submitted.json<{ id: string }>();
    const events = new SseClient(`${s.base}${JOBS_PATH}/${id}/events`, s.token);
    const workers = await s.h.startWorkers();
    try {
      await events.ended;
      expect(events.snapshots().at(-1)).toMatchObject({ state: 'succeeded' });
      const result = await s.h.app.inject({ method: 'GET', url: `${JOBS_PATH}/${id}/result`, headers: { authorization: `Bearer ${s.token}` } });
      expect(comparable(result.body)).toBe(comparable(cli.stdout));
      // Every ecosystem of the upload is in it.
      expect(result.body).toMatch(/^Go +github\.com\/google\/uuid +v1\.6\.0 /m);
      expect(result.body).toMatch(/^Python +six +1\.16\.0 /m);
      expect(result.body).toMatch(/^npm +express /m);
    } finally {
      await workers.close();
    }
  });
});

/**
 * A document without what differs by nature between two runs: when it was made and its unique
 * name (CycloneDX `serialNumber` and `metadata.timestamp`, SPDX `documentNamespace` and
 * `creationInfo.created`, the text's generated line). Everything else, key order included, must match.
 */
function withoutRunFacts(format: OutputFormat, document: string): string {
  if (format === 'text') return comparable(document);
  const doc = JSON.parse(document) as Record<string, unknown> & { metadata?: Record<string, unknown>; creationInfo?: Record<string, unknown> };
  if (format === 'cyclonedx') {
    doc['serialNumber'] = '-';
    if (doc.metadata) doc.metadata['timestamp'] = '-';
  } else {
    doc['documentNamespace'] = '-';
    if (doc.creationInfo) doc.creationInfo['created'] = '-';
  }
  return JSON.stringify(doc, null, 1);
}

const SET = join(CORPUS_DIR, 'js-pnpm-vue');
const FORMATS: readonly OutputFormat[] = ['cyclonedx', 'spdx', 'text'];

describe.skipIf(!existsSync(SET))('the CLI and the service processes, on a real lockfile with recorded registry documents', () => {
  let registry: RecordedRegistry | undefined;
  let database: TestDatabase | undefined;
  let api: (ServiceProcess & ApiClient) | undefined;
  let worker: ServiceProcess | undefined;
  let cache: string | undefined;
  const prefix = `pkgscope-test-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    registry = await startRecordedRegistry();
    database = await createTestDatabase();
    cache = await mkdtemp(join(tmpdir(), 'pkgscope-parity-cache-'));
    const service = { databaseUrl: database.url, redisUrl: REDIS_URL, redisPrefix: prefix, registryUrl: registry.url, extra: { JOB_LOCK_MS: '30000' } };
    const [started, working] = await Promise.allSettled([startApi(service), startService('worker', service)]);
    if (started.status === 'fulfilled') api = started.value;
    if (working.status === 'fulfilled') worker = working.value;
    if (started.status === 'rejected') throw started.reason;
    if (working.status === 'rejected') throw working.reason;
  }, 120_000);
  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await registry?.close();
    await database?.drop();
    if (cache !== undefined) await rm(cache, { recursive: true, force: true });
    await deleteKeysOnSharedRedis(prefix);
  });

  /** A job of the running service: its final snapshot and result. */
  const job = async (client: ApiClient, format: OutputFormat, files: readonly InputFile[]): Promise<{ snapshot: JobSnapshot | undefined; body: string }> => {
    const submitted = await client.request(JOBS_PATH, { method: 'POST', body: JSON.stringify({ format, files }) });
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as JobSnapshot;
    const events = new SseClient(`${client.base}${JOBS_PATH}/${id}/events`, client.token);
    await events.ended;
    const result = await client.request(`${JOBS_PATH}/${id}/result`);
    return { snapshot: events.snapshots().at(-1), body: await result.text() };
  };

  it('write the same document in every format, cold and from their caches, jobs and the synchronous endpoint alike', async () => {
    if (api === undefined || registry === undefined || cache === undefined) throw new Error('not set up');
    const [client, base, cacheDir] = [api, registry.url, cache];
    const { files } = await readInputs([SET]);
    const cli = (format: OutputFormat, env: Record<string, string> = {}): Promise<CliResult> =>
      runCli(['sbom', '--format', format, SET], { npm_config_registry: `${base}/`, XDG_CACHE_HOME: cacheDir, ...env });
    // Cold: the CLI's first run fills its disk cache while the first job fills Postgres.
    const [first, firstJob] = await Promise.all([cli('cyclonedx'), job(client, 'cyclonedx', files)]);
    // Warm: the other formats from the disk cache and from the worker's cache; and a cold CLI run
    // whose npm configuration sends metadata requests through npm's own fetch stack (strict-ssl
    // off: see plainHttpWill) while the service's went through its undici client.
    const [npmFetchStack, rest] = await Promise.all([
      cli('cyclonedx', { npm_config_strict_ssl: 'false', XDG_CACHE_HOME: join(cacheDir, 'npm-fetch') }),
      Promise.all(FORMATS.slice(1).map(async (format) => ({ format, cli: await cli(format), job: await job(client, format, files) }))),
    ]);
    // The API process's own analysis reads what the worker stored, from Postgres.
    const sync = await client.request('/v1/experimental/sbom', { method: 'POST', body: JSON.stringify({ format: 'cyclonedx', files }) });
    const runs = [{ format: 'cyclonedx' as const, cli: first, job: firstJob }, { format: 'cyclonedx' as const, cli: npmFetchStack, job: firstJob }, ...rest];
    for (const run of runs) {
      expect(run.cli.code, run.cli.stderr).toBe(0);
      expect(run.job.snapshot, JSON.stringify(run.job.snapshot?.error)).toMatchObject({ state: 'succeeded' });
      expect(withoutRunFacts(run.format, run.job.body), run.format).toBe(withoutRunFacts(run.format, run.cli.stdout));
    }
    expect(sync.status).toBe(200);
    expect(withoutRunFacts('cyclonedx', await sync.text())).toBe(withoutRunFacts('cyclonedx', first.stdout));
    // The registry's full documents came through both: path-parse's author (sent as "Name <http://url>").
    const { components } = JSON.parse(first.stdout) as { components: { purl?: string; authors?: unknown }[] };
    expect(components.find((c) => c.purl === 'pkg:npm/path-parse@1.0.7')?.authors).toEqual([{ name: 'Javier Blanco' }]);
  }, 300_000);
});
