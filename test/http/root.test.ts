import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../src/routes/console.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ deps: { publicRoutes: [consoleRoutes()] } });
});
afterAll(() => t.close());

describe('GET /', () => {
  it('shows a browser a page linking the console, without authentication', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('<a href="/console">');
    expect(res.body).toContain('<a href="/v1/openapi.json">');
    const console = await t.app.inject({ method: 'GET', url: '/console' });
    expect(console.statusCode).toBe(200);
  });

  it('gives other clients the same links as JSON', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/', headers: { accept: '*/*' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ service: 'pkgscope', links: { console: '/console', openapi: '/v1/openapi.json', health: '/healthz' } });
  });
});
