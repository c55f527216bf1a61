import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConsoleDirectory, loadConsoleBuild } from '../../src/routes/console-assets.js';
import { ASSET_CACHE_CONTROL, CONSOLE_CSP, consoleRoutes } from '../../src/routes/console.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const EXPECTED_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'";

const CONSOLE_SOURCES = fileURLToPath(new URL('../../console/src/', import.meta.url));

if (loadConsoleBuild(defaultConsoleDirectory()) === null) throw new Error('the console is not built: run `npm run build` before these tests');

describe('the console page and its assets', () => {
  let t: TestApp;
  let html: string;
  beforeAll(async () => {
    t = await startTestApp({ deps: { publicRoutes: [consoleRoutes()] } });
    html = (await t.app.inject({ method: 'GET', url: '/console' })).body;
  });
  afterAll(() => t.close());

  it('answers the page without authentication, uncached, with the strict CSP', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['content-security-policy']).toBe(EXPECTED_CSP);
    expect(CONSOLE_CSP).toBe(EXPECTED_CSP);
    // No inline script or style for the CSP to allow; nothing from elsewhere.
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).not.toMatch(/\s(src|href)="(https?:)?\/\//);
    expect(html).toMatch(/<script type="module" crossorigin src="\/console\/assets\/[\w-]+\.js">/);
    expect(html).toMatch(/<link rel="stylesheet" crossorigin href="\/console\/assets\/[\w-]+\.css">/);
  });

  it('serves the hashed assets immutable with their content types', async () => {
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1] ?? '');
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const url of assets) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control']).toBe(ASSET_CACHE_CONTROL);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-type']).toBe(url.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(res.rawPayload.length).toBeGreaterThan(100);
    }
  });

  it('is built from sources that hand no HTML string to the DOM (so Trusted Types can admit no policy)', () => {
    const sources = readdirSync(CONSOLE_SOURCES, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f));
    expect(sources.length).toBeGreaterThan(10);
    for (const file of sources) {
      const text = readFileSync(join(CONSOLE_SOURCES, file), 'utf8');
      expect(text, file).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|dangerouslySetInnerHTML|document\.write|\beval\(|new Function\(/);
    }
  });

  it.each([
    '/console/assets/nope-0000.js',
    '/console/assets/..%2F..%2Fpackage.json',
    '/console/assets/%2e%2e%2fpackage.json',
    '/console/assets/..%5C..%5Cpackage.json',
    '/console/assets/.%2Findex.html',
    '/console/assets/',
    '/console/index.html',
    '/console/assets/a/../../index.html',
  ])('answers 404 for %s', async (url) => {
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it.each([
    ['POST', '/console'],
    ['PUT', '/console'],
    ['DELETE', '/console/assets/index.js'],
    ['POST', '/console/assets/index.js'],
  ] as const)('answers %s %s with 405 and Allow: GET, HEAD', async (method, url) => {
    const res = await t.app.inject({ method, url, payload: method === 'DELETE' ? undefined : {} });
    expect(res.statusCode).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD');
    expect(res.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
  });

  it('sends /console/ to /console', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console/' });
    expect(res.statusCode).toBe(308);
    expect(res.headers['location']).toBe('/console');
  });

  it('answers HEAD like GET without a body', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/console' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe(EXPECTED_CSP);
    expect(res.body).toBe('');
  });
});

describe('a service started without the console build', () => {
  let t: TestApp;
  const empty = mkdtempSync(join(tmpdir(), 'pkgscope-console-'));
  beforeAll(async () => {
    t = await startTestApp({ deps: { publicRoutes: [consoleRoutes({ directory: empty })] } });
  });
  afterAll(async () => {
    await t.close();
    rmSync(empty, { recursive: true, force: true });
  });

  it('answers 503 saying to run npm run build, for the page and its assets', async () => {
    for (const url of ['/console', '/console/assets/index-abc.js']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      expect(res.json<{ detail: string }>().detail).toContain('npm run build');
    }
    // The rest of the service is unaffected.
    expect((await t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })).statusCode).toBe(200);
  });
});
