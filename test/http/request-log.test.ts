import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App, RoutePlugin } from '../../src/http/app.js';
import { MAX_LOGGED_CHARS } from '../../src/http/request-log.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { captureLogs } from '../helpers/logs.js';
import { probeRoutes } from './probe-routes.js';

const logs = captureLogs();
let t: TestApp;
let token: string;

/** A route that logs through its request's logger, as error paths do. */
const noisyRoutes: RoutePlugin = async (app: App) => {
  app.get('/noisy', { config: { capability: 'read' } }, async (request) => {
    request.log.warn({ detail: 'noted' }, 'a request noted something');
    return { level: request.log.level };
  });
};

beforeAll(async () => {
  t = await startTestApp({ deps: { logger: logs.logger, v1Routes: [probeRoutes, noisyRoutes] } });
  token = await t.token('logline');
});
afterAll(() => t.close());

const completed = (reqId: unknown) => logs.text().split('\n').find((l) => l.includes(`"reqId":"${String(reqId)}"`) && l.includes('"msg":"request completed"'));

describe('the request line', () => {
  it('is the JSON pino writes: its fields in order, escaped, with no query string', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/probe?secret=query-value',
      headers: { authorization: `Bearer ${token}`, 'x-service-session-id': 's_1', 'x-service-client-name': 'quote " and \\ back', 'x-service-agent': 'agent/1' },
    });
    expect(res.statusCode).toBe(200);
    const line = completed(res.headers['x-request-id']);
    expect(line).toBeDefined();
    const parsed = JSON.parse(line ?? '') as Record<string, unknown>;
    // Written as JSON.stringify writes the same values in the same order: no space, pino's escaping.
    expect(JSON.stringify(parsed)).toBe(line);
    expect(Object.keys(parsed)).toEqual(['level', 'time', 'service', 'pid', 'reqId', 'req', 'route', 'res', 'responseTime', 'account', 'session', 'client', 'msg']);
    expect(parsed).toMatchObject({
      level: 30,
      service: 'pkgscope',
      reqId: res.headers['x-request-id'],
      req: { method: 'GET', url: '/v1/probe' },
      route: '/v1/probe',
      res: { statusCode: 200 },
      account: 'logline',
      session: 's_1',
      client: { name: 'quote " and \\ back', version: null, agent: 'agent/1' },
      msg: 'request completed',
    });
    expect(typeof parsed['responseTime']).toBe('number');
    expect(new Date(String(parsed['time'])).toISOString()).toBe(parsed['time']);
    expect(logs.text()).not.toContain('query-value');
    expect(logs.text()).not.toContain(token);
  });

  it('clips a long path and gives an unmatched request a null route and account', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/${'p'.repeat(MAX_LOGGED_CHARS + 100)}` });
    expect(res.statusCode).toBe(404);
    const parsed = JSON.parse(completed(res.headers['x-request-id']) ?? '') as Record<string, unknown>;
    expect(parsed).toMatchObject({
      req: { method: 'GET', url: `/${'p'.repeat(MAX_LOGGED_CHARS - 1)}… (${MAX_LOGGED_CHARS + 101} characters)` },
      route: null,
      res: { statusCode: 404 },
      account: null,
      session: null,
      client: { name: null, version: null, agent: null },
    });
  });
});

describe('a request\'s own logger', () => {
  it('writes its lines with the request id and the service\'s bindings, at the service\'s level', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/noisy', headers: { authorization: `Bearer ${token}` } });
    expect(res.json()).toEqual({ level: 'info' });
    const noted = logs.lines().find((l) => l['msg'] === 'a request noted something');
    expect(noted).toMatchObject({ level: 40, service: 'pkgscope', reqId: res.headers['x-request-id'], detail: 'noted' });
  });

  it('writes a failed request\'s error with the request id, and its request line after it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/probe/boom', headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(500);
    const failed = logs.lines().find((l) => l['reqId'] === res.headers['x-request-id'] && l['msg'] === 'unexpected error');
    expect(failed).toMatchObject({ level: 50, service: 'pkgscope', err: { type: 'Error', message: 'secret internal detail at /srv/pkgscope/db.ts:42' } });
    expect(JSON.parse(completed(res.headers['x-request-id']) ?? '')).toMatchObject({ route: '/v1/probe/boom', res: { statusCode: 500 }, account: 'logline' });
  });
});
