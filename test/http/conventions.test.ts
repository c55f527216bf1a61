import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { startTestApp, UUID, type TestApp } from '../helpers/app.js';
import { captureLogs } from '../helpers/logs.js';
import { probeRoutes } from './probe-routes.js';

let t: TestApp;
let token: string;
const logs = captureLogs();

beforeAll(async () => {
  t = await startTestApp({ deps: { v1Routes: [probeRoutes], logger: logs.logger } });
  token = await t.token('conventions');
});
afterAll(() => t.close());

const auth = () => ({ authorization: `Bearer ${token}` });

function expectProblem(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  code: string,
) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  expect(res.headers['cache-control']).toBe('no-store');
  const requestId = res.headers['x-request-id'];
  expect(requestId).toMatch(UUID);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(body).toMatchObject({ type: 'about:blank', status, code, instance: requestId });
  expect(typeof body['title']).toBe('string');
  expect(typeof body['detail']).toBe('string');
  return body;
}

describe('shared response conventions', () => {
  it('gives every response a fresh X-Request-ID and Cache-Control: no-store', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/probe', headers: auth() });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-request-id']).toMatch(UUID);
      ids.add(String(res.headers['x-request-id']));
    }
    expect(ids.size).toBe(3);
  });

  it('ignores a client-supplied X-Request-ID', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'mine' } });
    expect(res.headers['x-request-id']).not.toBe('mine');
    expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it('answers unknown paths with a 404 problem', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/nothing-here', headers: auth() });
    expectProblem(res, 404, 'NOT_FOUND');
  });

  it('answers a wrong method on a known path with 405 and Allow, before authentication', async () => {
    const put = await t.app.inject({ method: 'PUT', url: '/v1/probe', payload: 'x', headers: { 'content-type': 'text/plain' } });
    expectProblem(put, 405, 'METHOD_NOT_ALLOWED');
    expect(put.headers['allow']).toBe('GET, HEAD, POST');
    const del = await t.app.inject({ method: 'DELETE', url: '/v1/probe/boom' });
    expectProblem(del, 405, 'METHOD_NOT_ALLOWED');
    expect(del.headers['allow']).toBe('GET, HEAD');
  });
});

describe('request bodies', () => {
  const post = (payload: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/probe',
      payload,
      headers: { ...auth(), 'content-type': 'application/json', ...headers },
    });

  it('accepts a valid body', async () => {
    const res = await post(JSON.stringify({ name: 'a', count: 2 }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ echo: { name: 'a', count: 2 } });
  });

  it('rejects malformed JSON with 400 VALIDATION_ERROR', async () => {
    const body = expectProblem(await post('{"name": '), 400, 'VALIDATION_ERROR');
    expect(body['detail']).toMatch(/JSON/);
  });

  it('rejects an empty JSON body', async () => {
    expectProblem(await post(''), 400, 'VALIDATION_ERROR');
  });

  it('rejects prototype poisoning', async () => {
    expectProblem(await post('{"name":"a","__proto__":{"x":1}}'), 400, 'VALIDATION_ERROR');
  });

  it('rejects a wrong content type with 400, not 415', async () => {
    const body = expectProblem(await post('name=a', { 'content-type': 'text/plain' }), 400, 'VALIDATION_ERROR');
    expect(body['detail']).toMatch(/Content-Type/);
    expectProblem(await post('<a/>', { 'content-type': 'application/xml' }), 400, 'VALIDATION_ERROR');
  });

  it('rejects a body over the route limit with 400 naming the limit, not 413', async () => {
    const body = expectProblem(await post(JSON.stringify({ name: 'x'.repeat(2000) })), 400, 'VALIDATION_ERROR');
    expect(body['detail']).toMatch(/1024 bytes/);
  });

  it('rejects unknown properties instead of removing them', async () => {
    const body = expectProblem(await post(JSON.stringify({ name: 'a', extra: true })), 400, 'VALIDATION_ERROR');
    expect(body['detail']).toMatch(/extra/);
  });

  it('rejects null where the schema does not allow it', async () => {
    const body = expectProblem(await post(JSON.stringify({ name: 'a', count: null })), 400, 'VALIDATION_ERROR');
    expect(body['detail']).toMatch(/count/);
  });

  it('does not coerce types', async () => {
    const body = expectProblem(await post(JSON.stringify({ name: 'a', count: '2' })), 400, 'VALIDATION_ERROR');
    expect(body['detail']).toMatch(/count must be an integer/);
    expectProblem(await post(JSON.stringify({ name: 1 })), 400, 'VALIDATION_ERROR');
    expectProblem(await post(JSON.stringify({ name: 'a', tags: 'x' })), 400, 'VALIDATION_ERROR');
  });

  it('names nested fields and missing fields', async () => {
    const missing = expectProblem(await post(JSON.stringify({})), 400, 'VALIDATION_ERROR');
    expect(missing['detail']).toMatch(/name is required/);
    const nested = expectProblem(await post(JSON.stringify({ name: 'a', tags: ['x', 3] })), 400, 'VALIDATION_ERROR');
    expect(nested['detail']).toMatch(/tags\[1\]/);
    const range = expectProblem(await post(JSON.stringify({ name: 'a', count: 9 })), 400, 'VALIDATION_ERROR');
    expect(range['detail']).toMatch(/count/);
    const notObject = expectProblem(await post(JSON.stringify([1])), 400, 'VALIDATION_ERROR');
    expect(notObject['detail']).toMatch(/request body must be a JSON object/i);
  });
});

describe('unexpected errors', () => {
  it('answers a 500 problem with a fixed detail and logs the error with the request id', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/probe/boom', headers: auth() });
    const body = expectProblem(res, 500, 'INTERNAL_ERROR');
    expect(res.body).not.toMatch(/secret|srv|db\.ts|stack/);
    expect(body['detail']).toBe('The request could not be completed because of an internal error.');
    const logged = logs.lines().find((l) => l['reqId'] === res.headers['x-request-id'] && l['msg'] === 'unexpected error');
    expect(JSON.stringify(logged)).toMatch(/secret internal detail/);
  });

  it('answers the empty 500 when no request identity can be created', async () => {
    const broken = await startTestApp({
      deps: {
        v1Routes: [probeRoutes],
        newRequestId: () => {
          throw new Error('entropy exhausted');
        },
      },
    });
    try {
      const res = await broken.app.inject({ method: 'GET', url: '/v1/probe/open' });
      expect(res.statusCode).toBe(500);
      expect(res.body).toBe('');
      expect(res.headers['x-request-id']).toBeUndefined();
      expect(res.headers['content-type']).toBeUndefined();
      expect(res.headers['cache-control']).toBe('no-store');
    } finally {
      await broken.close();
    }
  });
});

describe('over a real socket', () => {
  it('answers malformed HTTP with a problem document', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const response = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let data = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (data += chunk));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(response).toMatch(/^HTTP\/1.1 400/);
    expect(response).toMatch(/Content-Type: application\/problem\+json/);
    expect(response).toMatch(/Cache-Control: no-store/);
    const id = /X-Request-ID: (\S+)/.exec(response)?.[1];
    expect(id).toMatch(UUID);
    const body = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ code: 'VALIDATION_ERROR', status: 400, instance: id });
  });
});
