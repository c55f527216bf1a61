import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page, Request, Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Analyze } from '../../src/jobs/runner.js';
import { JOB_PHASES, JOBS_PATH, type JobPhase, type JobSnapshot } from '../../src/jobs/snapshot.js';
import { analyze } from '../../src/sbom/analyze.js';
import { HAS_CHROMIUM, launchChromium, openConsole, screenshot } from '../helpers/browser.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { FIXTURES } from '../helpers/fixtures.js';

const LOCKFILE = `${FIXTURES}lockfiles/small/npm3/package-lock.json`;
const MANIFEST = `${FIXTURES}lockfiles/small/npm3/package.json`;

interface CdxComponent {
  readonly 'bom-ref': string;
  readonly type: string;
  readonly name: string;
  readonly group?: string;
  readonly version?: string;
  readonly purl?: string;
  readonly licenses?: readonly { readonly expression?: string; readonly license?: { readonly id?: string; readonly name?: string } }[];
}

interface CycloneDx {
  readonly metadata: { readonly component?: CdxComponent };
  readonly components: readonly CdxComponent[];
  readonly dependencies?: readonly { readonly ref: string; readonly dependsOn?: readonly string[] }[];
  readonly properties: readonly { readonly name: string; readonly value: string }[];
}

/** Breadth-first distances from the project roots (the subject and every application component). */
function distances(doc: CycloneDx): Map<string, number> {
  const edges = new Map((doc.dependencies ?? []).map((d) => [d.ref, d.dependsOn ?? []]));
  const roots = [doc.metadata.component?.['bom-ref'], ...doc.components.filter((c) => c.type === 'application').map((c) => c['bom-ref'])].filter((r): r is string => r !== undefined);
  const depth = new Map(roots.map((r) => [r, 0]));
  let frontier = roots;
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const ref of frontier) {
      for (const child of edges.get(ref) ?? []) {
        if (depth.has(child)) continue;
        depth.set(child, (depth.get(ref) ?? 0) + 1);
        next.push(child);
      }
    }
    frontier = next;
  }
  return depth;
}

/** Opens the job's inventory and checks the table, the license chart and a dependency path against the document. */
async function checkInventoryView(page: Page, doc: CycloneDx): Promise<void> {
  await page.getByTestId('view-inventory').click();
  await page.getByTestId('sbom').waitFor();
  expect(await page.getByRole('tab', { name: 'Inventory' }).getAttribute('aria-selected')).toBe('true');
  expect(await page.getByTestId('sbom-count').getAttribute('data-count')).toBe(String(doc.components.length));

  // The license chart: the largest label and its count, as the document states them.
  const counts = new Map<string, number>();
  for (const c of doc.components) {
    const first = c.licenses?.[0];
    const label = first?.expression ?? first?.license?.id ?? first?.license?.name ?? 'unknown';
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const [topLabel, topCount] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
  const bar = page.getByTestId('license-chart').locator(`g[data-label="${topLabel}"]`);
  expect(await bar.getAttribute('data-count')).toBe(String(topCount));
  expect(await bar.locator('text').first().textContent()).toBe(topLabel);

  // The deepest component: filter to it, select it, and read its shortest path from the root.
  const depth = distances(doc);
  const deepest = [...doc.components].sort((a, b) => (depth.get(b['bom-ref']) ?? -1) - (depth.get(a['bom-ref']) ?? -1))[0]!;
  const steps = depth.get(deepest['bom-ref']) ?? 0;
  expect(steps).toBeGreaterThanOrEqual(2);
  const name = deepest.group ? `${deepest.group}/${deepest.name}` : deepest.name;
  await page.getByLabel('Filter components').fill(`${name} ${deepest.version ?? ''}`);
  const row = page.locator(`[role="row"][data-ref="${deepest['bom-ref']}"]`);
  await row.click();
  await page.locator(`[data-testid="component-detail"][data-ref="${deepest['bom-ref']}"]`).waitFor();
  expect(await page.getByTestId('component-purl').textContent()).toBe(deepest.purl ?? '—');
  const path: string[] = [];
  for (const item of await page.getByTestId('dependency-path').first().locator(':scope > li').all()) path.push((await item.getAttribute('data-ref')) ?? '');
  expect(path).toHaveLength(steps + 1);
  expect(path[0]).toBe(doc.metadata.component?.['bom-ref']);
  expect(path.at(-1)).toBe(deepest['bom-ref']);
  const edges = new Map((doc.dependencies ?? []).map((d) => [d.ref, d.dependsOn ?? []]));
  for (let i = 1; i < path.length; i++) expect(edges.get(path[i - 1]!)).toContain(path[i]);
  expect(await page.getByTestId('completeness').getAttribute('data-value')).toBe(doc.properties.find((p) => p.name === 'service:completeness')?.value);
}

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
    browser = await launchChromium();
    h = await startJobsHarness();
    base = await h.listen();
  });
  afterAll(async () => {
    // Either may be missing when beforeAll failed half-way.
    await (browser as Browser | undefined)?.close();
    await (h as JobsHarness | undefined)?.close();
  });

  beforeEach(async () => {
    ({ context, page, problems } = await openConsole(browser, base));
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
    await page.getByLabel('Lockfile', { exact: true }).setInputFiles(LOCKFILE);
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

    // The inventory view shows the document the API serves.
    const fromApi = await h.app.inject({ method: 'GET', url: `${JOBS_PATH}/${id}/result`, headers: { authorization: `Bearer ${token}` } });
    expect(fromApi.statusCode).toBe(200);
    await checkInventoryView(page, fromApi.json<CycloneDx>());
    await screenshot(page, 'job-inventory-1280');

    // The token travelled in headers only and was stored nowhere.
    expect(urls.some((url) => url.includes(token))).toBe(false);
    expect(await page.evaluate('localStorage.length + sessionStorage.length')).toBe(0);
    expect(problems).toEqual([]);
  });

  it('keeps the token in this tab\'s session storage only when asked to', async () => {
    await page.getByLabel('Bearer token').fill('kept-token');
    expect(await page.evaluate('localStorage.length + sessionStorage.length')).toBe(0);
    await page.getByLabel('Keep it for this tab').check();
    await page.waitForFunction('sessionStorage.getItem("pkgscope-token") === "kept-token"');
    await page.reload();
    expect(await page.getByLabel('Bearer token').inputValue()).toBe('kept-token');
    expect(await page.getByLabel('Keep it for this tab').isChecked()).toBe(true);
    await page.getByLabel('Keep it for this tab').uncheck();
    await page.waitForFunction('sessionStorage.length === 0');
    expect(await page.evaluate('localStorage.length')).toBe(0);
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
