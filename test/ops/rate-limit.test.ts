import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/http/app.js';
import { JOBS_PATH } from '../../src/jobs/snapshot.js';
import { apiAppDeps, createApiServices, type ApiServices } from '../../src/processes/routes.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';

let h: JobsHarness;
let second: { app: App; services: ApiServices };

beforeAll(async () => {
  h = await startJobsHarness({ RATE_LIMIT_PER_ACCOUNT: '5', RATE_LIMIT_UNAUTHENTICATED: '3', RATE_LIMIT_WINDOW_MS: '60000' });
  // A second API instance of the same deployment: same database, same Redis prefix.
  const services = await createApiServices(h.config, h.database, h.logger, await h.registry.npmOptions());
  const app = await buildApp(apiAppDeps(h.config, h.database, services, h.logger));
  await app.ready();
  second = { app, services };
});
afterAll(async () => {
  await second.app.close();
  await second.services.close();
  await h.close();
});

const instances = (): App[] => [h.app, second.app];

function ask(app: App, token: string | null) {
  return app.inject({
    method: 'GET',
    url: `${JOBS_PATH}/${randomUUID()}`,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
}

describe('rate limits shared by every API instance', () => {
  it('answers the sixth request of an account in a window with 429 RATE_LIMITED and Retry-After, whichever instance it reaches', async () => {
    const token = await h.token('busy');
    for (let i = 0; i < 5; i++) {
      const res = await ask(instances()[i % 2]!, token);
      expect(res.statusCode, `request ${i + 1}`).toBe(404);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    }
    for (const app of instances()) {
      const limited = await ask(app, token);
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED', status: 429, instance: limited.headers['x-request-id'] });
      const retryAfter = Number(limited.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    // Another account has a budget of its own.
    expect((await ask(second.app, await h.token('calm'))).statusCode).toBe(404);
  });

  it('limits requests without a valid token per client address, more tightly', async () => {
    for (let i = 0; i < 3; i++) expect((await ask(instances()[i % 2]!, i === 0 ? null : 'not-a-real-token')).statusCode).toBe(401);
    const limited = await ask(h.app, null);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    // A valid token is not held back by its address's anonymous budget.
    expect((await ask(h.app, await h.token('known'))).statusCode).toBe(404);
  });

  it('leaves probes, the OpenAPI document and the console unlimited', async () => {
    for (let i = 0; i < 8; i++) {
      for (const url of ['/healthz', '/v1/openapi.json', '/console']) expect((await h.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    }
  });
});
