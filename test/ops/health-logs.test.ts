import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { JOBS_PATH } from '../../src/jobs/snapshot.js';
import { apiAppDeps, createApiServices } from '../../src/processes/routes.js';
import { closeRedis, createRedis } from '../../src/redis.js';
import { healthRoutes } from '../../src/routes/health.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { captureLogs } from '../helpers/logs.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/redis-server.js';
import { PG_ADMIN_URL } from '../helpers/services.js';

describe('readiness', () => {
  let redis: PrivateRedis;
  let database: TestDatabase;
  let app: App;
  let client: ReturnType<typeof createRedis>;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    client = createRedis(redis.url, 'commands', 'readiness-test');
    database = await createTestDatabase();
    app = await buildApp({
      config: testConfig(database, { REDIS_URL: redis.url }),
      database,
      logger: createLogger('silent'),
      publicRoutes: [healthRoutes({ pool: database.pool, pingRedis: () => client.ping() })],
    });
  });
  afterAll(async () => {
    await app.close();
    await closeRedis(client);
    await redis.stop();
    await database.drop();
  });

  it('is ready while Postgres and Redis answer, and flips to 503 naming Redis when Redis stops', async () => {
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok', migrations: 'ok' } });
    await redis.stop();
    const down = await app.inject({ method: 'GET', url: '/readyz' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({ status: 'unavailable', checks: { postgres: 'ok', redis: 'unavailable', migrations: 'ok' } });
    // Alive all the same, and no account data anywhere.
    const alive = await app.inject({ method: 'GET', url: '/healthz' });
    expect(alive.statusCode).toBe(200);
    expect(alive.json()).toEqual({ status: 'ok' });
  });
});

describe('readiness under load', () => {
  let database: TestDatabase;
  let app: App;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  it('checks migrations at start-up and after Postgres sessions were lost, never per probe', async () => {
    const queries: string[] = [];
    // The pool as readiness sees it, noting each query it sends.
    const pool = new Proxy(database.pool, {
      get(target, property, receiver) {
        if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
        return (text: string, ...rest: unknown[]) => {
          queries.push(text);
          return (target.query as (...args: unknown[]) => unknown).call(target, text, ...rest);
        };
      },
    });
    const migrationQueries = (): number => queries.filter((q) => q.includes('drizzle')).length;
    app = await buildApp({
      config: testConfig(database),
      database,
      logger: createLogger('silent'),
      publicRoutes: [healthRoutes({ pool, onConnectionLost: database.onConnectionLost })],
    });
    for (let i = 0; i < 10; i++) {
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      expect(res.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok', migrations: 'ok' } });
    }
    const atStart = migrationQueries();
    expect(atStart).toBeGreaterThan(0);
    expect(queries.filter((q) => q === 'SELECT 1')).toHaveLength(10);

    // Postgres drops the sessions (a restart or failover): the next probe checks migrations again.
    const lost = new Promise<void>((resolve) => database.onConnectionLost(resolve));
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database.name]);
    await admin.end();
    await lost;
    for (let i = 0; i < 5; i++) {
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(200);
    }
    expect(migrationQueries()).toBe(2 * atStart);
  });
});

describe('request logs', () => {
  let h: JobsHarness;
  beforeAll(async () => {
    h = await startJobsHarness();
  });
  afterAll(() => h.close());

  it('carry request id, account, session and client attribution, and never a token or uploaded content', async () => {
    const logs = captureLogs();
    const services = await createApiServices(h.config, h.database, logs.logger, await h.registry.npmOptions());
    const app = await buildApp(apiAppDeps(h.config, h.database, services, logs.logger));
    try {
      const token = await h.token('logged');
      const marker = 'SECRET-UPLOADED-CONTENT-7f3a9';
      const files = SMALL_NPM().map((f) => (f.path === 'package.json' ? { ...f, content: f.content.replace('{', `{"description":"${marker}",`) } : f));
      const res = await app.inject({
        method: 'POST',
        url: JOBS_PATH,
        headers: {
          authorization: `Bearer ${token}`,
          'x-service-session-id': 'session_1',
          'x-service-client-name': 'log-test',
          'x-service-client-version': '1.2.3',
          'x-service-agent': 'vitest',
        },
        payload: { format: 'text', files },
      });
      expect(res.statusCode).toBe(202);
      const refused = await app.inject({ method: 'POST', url: '/v1/list', headers: { authorization: 'Bearer wrong-token-value' }, payload: { target: 'npm:x' } });
      expect(refused.statusCode).toBe(401);

      const line = logs.lines().find((l) => l['msg'] === 'request completed' && (l['req'] as { url?: string } | undefined)?.url === JOBS_PATH);
      expect(line).toMatchObject({
        reqId: res.headers['x-request-id'],
        account: 'logged',
        session: 'session_1',
        client: { name: 'log-test', version: '1.2.3', agent: 'vitest' },
        res: { statusCode: 202 },
        req: { method: 'POST', url: JOBS_PATH },
        route: JOBS_PATH,
      });
      const text = logs.text();
      expect(text).not.toContain(token);
      expect(text).not.toContain('wrong-token-value');
      expect(text).not.toContain(marker);
      expect(text).not.toMatch(/authorization/i);
    } finally {
      await app.close();
      await services.close();
    }
  });
});
