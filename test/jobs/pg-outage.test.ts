import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import { isStoreUnavailable } from '../../src/store-errors.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/pg-cluster.js';
import { anyPackage, startFixtureRegistry } from '../helpers/registry.js';
import { pollUntil } from '../helpers/poll.js';
import { PG_ADMIN_URL, REDIS_URL } from '../helpers/services.js';
import { JOBS, startApi, startService, type ApiClient, type ServiceEnv, type ServiceProcess } from '../helpers/service-processes.js';

/** Terminates the sessions of `database` whose application name is one of `names` (57P01 for them). */
async function terminate(database: string, names: readonly string[]): Promise<number> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    const result = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = ANY($2) AND pid <> pg_backend_pid()',
      [database, names],
    );
    return result.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

const terminal = (s: JobSnapshot): boolean => s.state === 'succeeded' || s.state === 'failed';

/**
 * Polls the job snapshots until all are terminal (each poll is an API request: it must answer),
 * failing with what it last saw after `withinMs`.
 */
async function untilFinished(api: ApiClient, ids: readonly string[], during?: () => Promise<unknown>, withinMs = 90_000): Promise<JobSnapshot[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    await during?.();
    const snapshots = await Promise.all(ids.map((id) => api.snapshot(id).catch(() => null)));
    if (snapshots.every((s) => s !== null && terminal(s))) return snapshots as JobSnapshot[];
    if (Date.now() > deadline) {
      const seen = snapshots.map((s, i) => `${ids[i] ?? '?'}: ${s === null ? 'no answer' : `${s.state}/${s.phase} attempt ${s.attempt}`}`);
      throw new Error(`jobs not finished after ${withinMs} ms:\n  ${seen.join('\n  ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a checked-out Postgres client whose session is terminated', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('fails its transaction with a store-unavailable error instead of crashing the process, and the pool recovers', async () => {
    const name = `pkgscope-outage-${randomBytes(4).toString('hex')}`;
    const handle = connectDatabase(database.url, { applicationName: name, max: 2 });
    try {
      const lost = new Promise<void>((resolve) => handle.onConnectionLost(resolve));
      const transaction = handle.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT 1`);
        expect(await terminate(database.name, [name])).toBe(1);
        // The 'error' arrives while no query runs: only a listener of our own keeps it handled.
        await lost;
        await tx.execute(sql`SELECT 1`);
      });
      const error = await transaction.then(
        () => null,
        (e: unknown) => e,
      );
      expect(isStoreUnavailable(error)).toBe(true);
      expect((await handle.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await handle.close();
    }
  });
});

interface Services {
  readonly api: ServiceProcess & ApiClient;
  readonly worker: ServiceProcess;
  stop(): Promise<void>;
}

/** An API and a worker process on `databaseUrl`, with a slowish registry so jobs take a while. */
async function startServices(databaseUrl: string): Promise<Services> {
  const registry = await startFixtureRegistry({ fallback: anyPackage, latencyMs: 40 });
  const service: ServiceEnv = {
    databaseUrl,
    redisUrl: REDIS_URL,
    redisPrefix: `pkgscope-test-${randomBytes(4).toString('hex')}`,
    registryUrl: registry.url,
    // untilFinished polls every job about ten times a second: past the default 600 requests a
    // minute the API answered 429 until the window ended, and the test waited a minute for it.
    extra: { RATE_LIMIT_PER_ACCOUNT: '1000000' },
  };
  const api = await startApi(service);
  const worker = await startService('worker', service, { JOB_CRASH_BACKOFF_MS: '100' });
  return {
    api,
    worker,
    stop: async () => {
      await Promise.all([api.stop(), worker.stop()]);
      await registry.close();
    },
  };
}

describe('service processes whose Postgres sessions are terminated while jobs run', () => {
  let database: TestDatabase;
  let services: Services;
  let api: ServiceProcess & ApiClient;
  let worker: ServiceProcess;
  beforeAll(async () => {
    database = await createTestDatabase();
    services = await startServices(database.url);
    ({ api, worker } = services);
  }, 60_000);
  afterAll(async () => {
    await services.stop();
    await database.drop();
  });

  it('keeps both processes alive and retries the jobs: none fails', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await api.submit()).id);
    let terminated = 0;
    const finished = await untilFinished(api, ids, async () => {
      terminated += await terminate(database.name, ['pkgscope-api', 'pkgscope-worker']);
    });
    expect(terminated).toBeGreaterThan(0);
    expect(api.alive() && worker.alive()).toBe(true);
    const failed = finished.filter((s) => s.state !== 'succeeded');
    expect(failed, JSON.stringify(failed)).toEqual([]);
    // A store outage is not the job's fault: it gives its attempt back.
    expect(Math.max(...finished.map((s) => s.attempt))).toBeLessThanOrEqual(3);
    expect(api.stderr() + worker.stderr()).not.toMatch(/Unhandled|Emitted 'error'/);
  }, 120_000);
});

describe('a Postgres restart and outage (private cluster)', () => {
  // Started in beforeAll, not while collecting: a filtered run would start it and never stop it.
  let cluster: PrivatePostgres | null = null;
  let services: Services | null = null;
  let api: ServiceProcess & ApiClient;
  let worker: ServiceProcess;
  beforeAll(async () => {
    cluster = await startPrivatePostgres();
    if (cluster === null) return;
    const databaseUrl = cluster.url('pkgscope');
    await runMigrations(databaseUrl);
    services = await startServices(databaseUrl);
    ({ api, worker } = services);
  }, 60_000);
  afterAll(async () => {
    await services?.stop();
    await cluster?.destroy();
  });

  it('survives pg_ctl restart -m fast under load: processes alive, every job succeeds', async (ctx) => {
    if (cluster === null) return ctx.skip('initdb is not installed (set PG_BIN)');
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await api.submit()).id);
    await cluster.restart();
    for (let i = 0; i < 4; i++) ids.push((await api.submit()).id);
    const finished = await untilFinished(api, ids);
    expect(api.alive() && worker.alive()).toBe(true);
    expect(finished.map((s) => s.state)).toEqual(ids.map(() => 'succeeded'));
    expect(api.stderr() + worker.stderr()).not.toMatch(/Unhandled|Emitted 'error'/);
  }, 120_000);

  it('answers 503 problem+json with Retry-After promptly while Postgres is down, and recovers by itself', async (ctx) => {
    if (cluster === null) return ctx.skip('initdb is not installed (set PG_BIN)');
    const job = await api.submit();
    // The same request with Postgres up: what "promptly" means on this machine now (a loaded
    // two-core machine answers in seconds what an idle one answers in milliseconds).
    const up = performance.now();
    await api.request(`${JOBS}/${job.id}/result`);
    const prompt = Math.max(2_000, 8 * (performance.now() - up));
    await cluster.stop();
    try {
      const started = performance.now();
      // The result, which only Postgres holds (the job's status may be answered from the API's memory).
      const res = await api.request(`${JOBS}/${job.id}/result`);
      // Answered while Postgres is still down (none waits for it to come back), and promptly.
      expect(performance.now() - started).toBeLessThan(prompt);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      const ready = await fetch(`${api.base}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ checks: { postgres: 'unavailable' } });
    } finally {
      await cluster.start();
    }
    let readiness = 0;
    await pollUntil(
      'the API ready again after Postgres came back',
      async () => {
        readiness = (await fetch(`${api.base}/readyz`)).status;
        return readiness === 200 ? true : undefined;
      },
      { withinMs: 60_000, describe: () => `/readyz answered ${readiness}` },
    );
    const [finished] = await untilFinished(api, [job.id]);
    expect(finished).toMatchObject({ state: 'succeeded' });
    expect(api.alive() && worker.alive()).toBe(true);
  }, 120_000);
});
