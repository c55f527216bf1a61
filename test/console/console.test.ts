import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page, type Request, type Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Analyze } from '../../src/jobs/runner.js';
import { JOB_PHASES, JOBS_PATH, type JobPhase, type JobSnapshot } from '../../src/jobs/snapshot.js';
import { CONSOLE_CSP, consoleRoutes } from '../../src/routes/console.js';
import { analyze } from '../../src/sbom/analyze.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { FIXTURES } from '../helpers/fixtures.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM) {
  console.warn(`console browser tests skipped: no Chromium at ${CHROMIUM} (install Debian's chromium or set CHROMIUM_PATH)`);
}

const LOCKFILE = `${FIXTURES}lockfiles/small/npm3/package-lock.json`;
const MANIFEST = `${FIXTURES}lockfiles/small/npm3/package.json`;

describe('GET /console', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ deps: { publicRoutes: [consoleRoutes()] } });
  });
  afterAll(() => t.close());

  it('answers the page without authentication, with a CSP allowing exactly its inline script and style', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toBe(CONSOLE_CSP);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');

    const html = res.body;
    const inline = (tag: string): string[] =>
      [...html.matchAll(new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1] ?? '');
    const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    const scripts = inline('script');
    const styles = inline('style');
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    expect(csp).toContain(`script-src ${hash(scripts[0]!)}`);
    expect(csp).toContain(`style-src ${hash(styles[0]!)}`);
    // Nothing is loaded from elsewhere.
    expect(html).not.toMatch(/\s(src|href)="(https?:)?\/\//);
    expect(html).toContain('aria-live="polite"');
  });

  it('answers other methods with 405', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/console', payload: {} });
    expect(res.statusCode).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD');
  });
});

/** Resolves `release` to let every held analysis leave the enriching phase. */
function gateAt(phase: JobPhase): { analyze: Analyze; release: () => void } {
  let release = (): void => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const gated: Analyze = (files, format, deps) =>
    analyze(files, format, {
      ...deps,
      checkpoint: async (entered) => {
        await deps.checkpoint?.(entered);
        if (entered !== phase) return;
        // A worker shutting down aborts the attempt; the gate must not outlive it.
        await new Promise<void>((resolve) => {
          void gate.then(resolve);
          deps.signal?.addEventListener('abort', () => resolve(), { once: true });
        });
      },
    });
  return { analyze: gated, release: () => release() };
}

describe.skipIf(!HAS_CHROMIUM)('job console in Chromium', () => {
  let h: JobsHarness;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    h = await startJobsHarness();
    base = await h.listen();
  });
  afterAll(async () => {
    // Either may be missing when beforeAll failed half-way.
    await (browser as Browser | undefined)?.close();
    await (h as JobsHarness | undefined)?.close();
  });

  beforeEach(async () => {
    context = await browser.newContext({ acceptDownloads: true });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    problems = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) problems.push(message.text());
    });
    await page.goto(`${base}/console`);
  });
  afterEach(async () => {
    await context.close();
  });

  async function phasesSeen(): Promise<string[]> {
    const phases: string[] = [];
    for (const item of await page.locator('#phase-log li').all()) phases.push((await item.getAttribute('data-phase')) ?? '');
    return phases;
  }

  async function fillForm(token: string): Promise<void> {
    await page.getByLabel('Bearer token').fill(token);
    await page.getByLabel('Lockfile').setInputFiles(LOCKFILE);
    await page.getByLabel('package.json (optional)').setInputFiles(MANIFEST);
    await page.getByLabel('Output format').selectOption('cyclonedx');
  }

  it('submits a lockfile, shows phases and counts live, reconnects with Last-Event-ID and downloads the CycloneDX result', async () => {
    const token = await h.token();
    const urls: string[] = [];
    const eventRequests: Request[] = [];
    page.on('request', (request) => {
      urls.push(request.url());
      if (request.url().endsWith('/events')) eventRequests.push(request);
    });
    await fillForm(token);
    await page.getByTestId('submit').click();

    // No worker yet: the job waits in the queue while the stream is open.
    await page.locator('#job-state', { hasText: 'queued' }).waitFor();
    await page.locator('#connection[data-state="live"]').waitFor();
    const gate = gateAt('enriching');
    await h.startWorkers({}, gate.analyze);

    // Held in enriching: the phase and the counts arrived over the stream before completion.
    await page.locator('#phase-log li[data-phase="enriching"]').waitFor();
    expect(await page.locator('#job-state').textContent()).toBe('running');
    const total = Number(await page.locator('#counts dd[data-count="coordinates_total"]').textContent());
    expect(total).toBeGreaterThan(0);
    expect(Number(await page.locator('#counts dd[data-count="resolved"]').textContent())).toBeGreaterThan(0);
    expect(await page.getByTestId('progress-status').textContent()).toContain('Enriching');
    expect(await page.getByTestId('result').isHidden()).toBe(true);

    // The stream ends early (as at an API shutdown): the page reconnects, naming the last event.
    const revision = await page.locator('#job-revision').textContent();
    const reconnected = page.waitForRequest((request) => request.url().endsWith('/events'));
    h.services.hub.closeAll();
    const again = await reconnected;
    expect(await again.headerValue('last-event-id')).toBe(revision);
    await page.locator('#connection[data-state="live"]').waitFor();

    gate.release();
    await page.locator('#job-state', { hasText: 'succeeded' }).waitFor();
    await page.locator('#connection[data-state="closed"]').waitFor();
    const phases = await phasesSeen();
    expect(phases.slice(0, 3)).toEqual(['queued', 'resolving', 'enriching']);
    expect(phases.at(-1)).toBe('succeeded');
    const order = phases.map((p) => JOB_PHASES.indexOf(p as JobPhase));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(phases).size).toBe(phases.length);
    expect(eventRequests.length).toBeGreaterThanOrEqual(2);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download').click()]);
    const id = (await page.getByTestId('job-id').textContent()) ?? '';
    expect(download.suggestedFilename()).toBe(`pkgscope-${id}.cdx.json`);
    const document = JSON.parse(readFileSync(await download.path(), 'utf8')) as { bomFormat?: unknown; components?: unknown };
    expect(document.bomFormat).toBe('CycloneDX');
    expect(Array.isArray(document.components) && document.components.length > 0).toBe(true);

    // The token travelled in headers only and was stored nowhere.
    expect(urls.some((url) => url.includes(token))).toBe(false);
    expect(await page.evaluate('localStorage.length + sessionStorage.length')).toBe(0);
    expect(problems).toEqual([]);
  });

  it('shows the 401 problem detail and code for a wrong token', async () => {
    await fillForm('not-a-real-token');
    await page.getByTestId('submit').click();
    await page.getByTestId('error').waitFor();
    expect(await page.getByTestId('error-code').textContent()).toBe('AUTHENTICATION_REQUIRED');
    expect(await page.getByTestId('error-detail').textContent()).toBe('The bearer token is not valid.');
    expect(await page.locator('#error-title').textContent()).toContain('401');
    expect(await page.getByTestId('job').isHidden()).toBe(true);
    expect(problems).toEqual([]);
  });

  it('parses CRLF, CR, multi-line data, comments and retry; drops an unfinished event; reconnects and shows the job error', async () => {
    const id = '0b0e7a8c-3c1f-4c0e-9d7e-5b1d2f0a6c11';
    const snapshot = (revision: number, state: JobSnapshot['state'], phase: JobPhase, extra: Partial<JobSnapshot> = {}): JobSnapshot => ({
      id,
      kind: 'sbom',
      format: 'cyclonedx',
      state,
      phase,
      attempt: state === 'queued' ? 0 : 1,
      revision,
      counts: {},
      error: null,
      expires_at: '2099-01-01T00:00:00.000Z',
      result_url: `${JOBS_PATH}/${id}/result`,
      ...extra,
    });
    const counts = { coordinates_total: 4, coordinates_done: 1 };
    const resolving = JSON.stringify(snapshot(3, 'running', 'resolving'), null, 1).split('\n');
    const half = Math.floor(resolving.length / 2);
    const first = [
      ': connected\r\n\r\n',
      'retry: 50\r\n',
      'event: snapshot\r\nid: 3\r\n',
      `data: ${resolving.slice(0, half).join('\r\ndata: ')}\r\ndata\r\ndata:${resolving.slice(half).join('\r\ndata: ')}\r\n\r\n`,
      'event: note\ndata: not a snapshot\n\n',
      `event: snapshot\rid: 5\rdata: ${JSON.stringify(snapshot(5, 'running', 'enriching', { counts }))}\r\r`,
      `event: snapshot\nid: 6\ndata: ${JSON.stringify(snapshot(6, 'running', 'rendering'))}\n`,
    ].join('');
    const failed = snapshot(7, 'failed', 'failed', { error: 'resolution_failed', counts });
    const second = `event: snapshot\nid: 7\ndata: ${JSON.stringify(failed)}\n\n`;
    const lastEventIds: (string | null)[] = [];
    await page.route(
      (url) => url.pathname === JOBS_PATH,
      (route: Route) => route.fulfill({ status: 202, contentType: 'application/json', body: JSON.stringify(snapshot(0, 'queued', 'queued')) }),
    );
    await page.route(
      (url) => url.pathname.endsWith('/events'),
      async (route: Route) => {
        lastEventIds.push(await route.request().headerValue('last-event-id'));
        await route.fulfill({ status: 200, contentType: 'text/event-stream', body: lastEventIds.length === 1 ? first : second });
      },
    );

    await fillForm('stub-token');
    await page.getByTestId('submit').click();
    await page.locator('#job-state', { hasText: 'failed' }).waitFor();

    expect(lastEventIds).toEqual([null, '5']);
    expect(await phasesSeen()).toEqual(['queued', 'resolving', 'enriching', 'failed']);
    expect(await page.locator('#counts dd[data-count="coordinates_total"]').textContent()).toBe('4');
    expect(await page.getByTestId('error-code').textContent()).toBe('resolution_failed');
    expect(await page.getByTestId('error-detail').textContent()).toBe('The dependencies could not be resolved.');
    expect(await page.getByTestId('result').isHidden()).toBe(true);
    expect(problems).toEqual([]);
  });
});
