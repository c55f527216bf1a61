import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiServices } from '../../src/processes/routes.js';
import { OutageLog } from '../../src/outage-log.js';
import { startWorkers } from '../../src/processes/workers.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { captureLogs } from '../helpers/logs.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/redis-server.js';
import { anyPackage, startFixtureRegistry, type FixtureRegistry } from '../helpers/registry.js';

describe('a Redis outage under an API and a worker', () => {
  let redis: PrivateRedis;
  let database: TestDatabase;
  let registry: FixtureRegistry;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    database = await createTestDatabase();
    registry = await startFixtureRegistry({ fallback: anyPackage });
  });
  afterAll(async () => {
    await redis.stop();
    await registry.close();
    await database.drop();
  });

  it('logs one structured warning per component, nothing on stderr, and a line when each recovers', async () => {
    const logs = captureLogs();
    const config = testConfig(database, { REDIS_URL: redis.url, RECONCILE_INTERVAL_MS: '500', JOB_LOCK_MS: '2000' });
    const npmOptions = await registry.npmOptions();
    const services = await createApiServices(config, database, logs.logger.child({ role: 'api' }), npmOptions);
    const workers = await startWorkers({ config, database, logger: logs.logger.child({ role: 'worker' }), npmOptions });
    const stderr = vi.spyOn(process.stderr, 'write');
    const consoleError = vi.spyOn(console, 'error');
    try {
      const expected = ['api/pkgscope-api-commands', 'api/queue:sbom', 'worker/pkgscope-worker-commands', 'worker/worker:sbom'];
      const componentsOf = (lines: Record<string, unknown>[], keep: (l: Record<string, unknown>) => boolean): Set<string> =>
        new Set(lines.filter(keep).map((l) => `${String(l['role'])}/${String(l['component'])}`));
      const warned = (lines: Record<string, unknown>[]) => componentsOf(lines, (l) => l['level'] === 40);
      await redis.stop();
      // Many reconnect attempts fail meanwhile: the outage is down once each of these has warned
      // (under load, some connections only try again after a backoff longer than the outage).
      await logs.waitFor((lines) => expected.every((c) => warned(lines).has(c)));
      redis = await startPrivateRedis(Number(new URL(redis.url).port));
      // Every connection that warned says when it works again (queues and workers ride on them).
      await logs.waitFor((lines) => {
        const recovered = componentsOf(lines, (l) => l['msg'] === 'redis connection recovered');
        return [...warned(lines)].filter((c) => c.includes('/pkgscope-')).every((c) => recovered.has(c));
      });
      expect(stderr).not.toHaveBeenCalled();
      expect(consoleError).not.toHaveBeenCalled();
      const warnings = logs.lines().filter((l) => l['level'] === 40);
      expect(warnings.length).toBeGreaterThan(0);
      const perComponent = new Map<string, number>();
      for (const w of warnings) {
        expect(typeof w['component']).toBe('string');
        expect(w['err']).toBeUndefined();
        // Both processes share this test's process: a component is named within its role.
        const key = `${String(w['role'])}/${String(w['component'])}`;
        perComponent.set(key, (perComponent.get(key) ?? 0) + 1);
      }
      expect(Math.max(...perComponent.values()), JSON.stringify(warnings.map((w) => [w['component'], w['msg'], w['error']]))).toBe(1);
      expect([...perComponent.keys()]).toEqual(expect.arrayContaining(['api/pkgscope-api-commands', 'api/queue:sbom', 'worker/pkgscope-worker-commands', 'worker/worker:sbom']));
      expect(logs.text()).not.toMatch(/\n\s+at /);
    } finally {
      stderr.mockRestore();
      consoleError.mockRestore();
      await workers.close();
      await services.close();
    }
  }, 60_000);
});

describe('the outage log', () => {
  it('warns once per component per interval, counting the repeats it held back', () => {
    const logs = captureLogs();
    let now = 0;
    const outages = new OutageLog(logs.logger, 1_000, () => now);
    for (let i = 0; i < 5; i++) outages.warn('redis', new Error('down'));
    outages.warn('postgres', Object.assign(new Error('gone'), { code: '57P01' }));
    now = 1_000;
    outages.warn('redis', new Error('down'));
    outages.recovered('redis');
    outages.recovered('redis');
    expect(logs.lines().map((l) => [l['component'], l['repeats'], l['msg']])).toEqual([
      ['redis', 0, 'store connection problem'],
      ['postgres', 0, 'store connection problem'],
      ['redis', 4, 'store connection problem'],
      ['redis', undefined, 'store connection recovered'],
    ]);
    expect(logs.lines()[1]).toMatchObject({ error: { code: '57P01', message: 'gone' } });
  });
});
