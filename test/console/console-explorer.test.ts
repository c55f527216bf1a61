import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadResponseType } from '../../src/routes/inventory/schemas.js';
import { HAS_CHROMIUM, launchChromium, openConsole, overflowsHorizontally, screenshot, unnamedControls, type ConsolePage } from '../helpers/browser.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import type { FixturePackage } from '../helpers/registry.js';
import { packageTarball } from '../helpers/tarball.js';

/** Text a renderer could get wrong: markup, CRLF, a tab, trailing spaces, non-ASCII, no final newline. */
const TRICKY = 'const s = "<script>alert(1)</script>";\r\n\tconst ü = `ñ ✓ ${s}`;  \n/* a\n   comment */\n\n// end';
const README = [
  '# Demo',
  '',
  'Some *text*, a [link](https://example.com/docs) and a [relative one](docs/guide.md).',
  '',
  '![logo](https://images.example.net/logo.png)',
  '',
  '<img src="https://images.example.net/x.png" onerror="alert(1)">',
  '',
  '```js',
  'const a = 1;',
  '```',
  '',
].join('\n');
const FILES: Record<string, string | Buffer> = {
  'package.json': '{"name":"demo","version":"1.1.0"}\n',
  'README.md': README,
  'src/index.js': 'export * from "./util/strings.js";\n',
  'src/util/strings.js': TRICKY,
  'test/a.test.js': 'test("a", () => {});\n',
  'bin/tool': Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 37) % 256)),
  ...Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`many/f${String(i).padStart(3, '0')}.txt`, `file ${i}\n`])),
};

describe.skipIf(!HAS_CHROMIUM)('the explorer in Chromium', () => {
  let h: JobsHarness;
  let token: string;
  let base: string;
  let browser: Browser;
  let c: ConsolePage;

  beforeAll(async () => {
    const packages: Record<string, FixturePackage> = {
      demo: {
        versions: {
          '1.0.0': { _tarball: await packageTarball({ 'package.json': '{"name":"demo","version":"1.0.0"}\n', 'src/index.js': 'old\n' }) },
          '1.1.0': { _tarball: await packageTarball(FILES) },
        },
      },
    };
    h = await startJobsHarness({}, { packages });
    token = await h.token('explorer');
    base = await h.listen();
    browser = await launchChromium();
    c = await openConsole(browser, base);
    await c.page.getByLabel('Bearer token').fill(token);
  });
  afterAll(async () => {
    await (browser as Browser | undefined)?.close();
    await (h as JobsHarness | undefined)?.close();
  });

  const rows = (path: string) => c.page.locator(`[data-testid="entries"] tr[data-path="${path}"]`);

  it('shows the preparation, then browses by breadcrumbs and pages to a file shown byte for byte', async () => {
    const { page } = c;
    await page.getByRole('tab', { name: 'Explorer' }).click();
    await page.getByLabel('Target to browse').fill('npm:demo@1.1.0');
    await page.getByTestId('explore-submit').click();
    // No worker yet: the target stays pending and the console says so while it polls.
    await page.locator('[data-testid="preparing"][data-state="pending"]').waitFor();
    await h.startWorkers();
    await rows('src').waitFor({ timeout: 20_000 });

    await page.getByRole('button', { name: 'Open folder src' }).click();
    await page.getByRole('button', { name: 'Open folder src/util' }).click();
    await page.getByRole('button', { name: 'Read src/util/strings.js' }).click();
    const content = page.getByTestId('file-content');
    await content.waitFor();
    const read = await h.app.inject({ method: 'GET', url: `/v1/read?${new URLSearchParams({ target: 'npm:demo@1.1.0', path: 'src/util/strings.js' }).toString()}`, headers: { authorization: `Bearer ${token}` } });
    expect(read.statusCode).toBe(200);
    const served = read.json<ReadResponseType>();
    expect(served.content).toBe(TRICKY);
    expect(await content.textContent()).toBe(served.content);
    expect(await content.getAttribute('data-language')).toBe('javascript');
    expect(await content.locator('span.hljs-keyword').first().textContent()).toBe('const');
    expect(await page.locator('.code-view script').count()).toBe(0);

    const crumbs = page.getByTestId('breadcrumbs').locator('li');
    expect(await crumbs.allTextContents()).toEqual(['npm:demo@1.1.0', 'src', 'util']);
    await crumbs.first().getByRole('button').click();
    await rows('many').waitFor();

    // Cursor paging inside a directory of 130 files.
    await page.getByRole('button', { name: 'Open folder many' }).click();
    await rows('many/f099.txt').waitFor();
    expect(await page.locator('[data-testid="entries"] tbody tr').count()).toBe(100);
    await page.getByRole('button', { name: 'Next page' }).click();
    await rows('many/f129.txt').waitFor();
    expect(await page.locator('[data-testid="entries"] tbody tr').count()).toBe(30);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await rows('many/f000.txt').waitFor();
    expect(c.problems).toEqual([]);
  });

  it('renders Markdown from its syntax tree, loads no image, describes binary files and filters by intent', async () => {
    const { page } = c;
    await page.getByTestId('breadcrumbs').locator('li').first().getByRole('button').click();
    await page.getByRole('button', { name: 'Read README.md' }).click();
    const markdown = page.locator('.markdown');
    await markdown.waitFor();
    expect(await markdown.locator('h2').textContent()).toBe('Demo');
    expect(await markdown.locator('em').textContent()).toBe('text');
    expect(await markdown.getByRole('link', { name: 'link' }).getAttribute('href')).toBe('https://example.com/docs');
    // A relative link is not followed out of the console; images and raw HTML are not loaded.
    expect(await markdown.getByRole('link', { name: 'relative one' }).count()).toBe(0);
    expect(await markdown.locator('img').count()).toBe(0);
    expect(await markdown.locator('code.raw-html').textContent()).toContain('<img src=');
    expect(await markdown.locator('pre code .hljs-keyword').textContent()).toBe('const');
    await page.getByRole('button', { name: 'Show the source' }).click();
    expect(await page.getByTestId('file-content').textContent()).toBe(README);

    await page.getByRole('button', { name: 'Open folder bin' }).click();
    await page.getByRole('button', { name: 'Read bin/tool' }).click();
    await page.getByTestId('binary-file').waitFor();
    expect(await page.getByTestId('binary-file').textContent()).toContain('Binary file');

    await page.getByText('Filters').click();
    await page.getByRole('checkbox', { name: 'test' }).check();
    await page.getByRole('checkbox', { name: /recursive/ }).check();
    await page.getByTestId('explore-submit').click();
    await rows('test/a.test.js').waitFor();
    expect(await page.locator('[data-testid="entries"] tbody tr').count()).toBe(1);
    expect(c.problems).toEqual([]);
  });

  it('greps, opens a match in the explorer and compares two versions', async () => {
    const { page } = c;
    await page.getByRole('tab', { name: 'Search' }).click();
    await page.getByLabel('Target to search').fill('npm:demo@1.1.0');
    await page.getByLabel('Pattern').fill('alert(1)');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByTestId('grep-results').waitFor();
    expect(await page.locator('.match-line mark').first().textContent()).toBe('alert(1)');
    await page.getByRole('button', { name: 'Open src/util/strings.js at line 1' }).click();
    expect(await page.getByRole('tab', { name: 'Explorer' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByTestId('file-content').textContent()).toBe(TRICKY);

    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByLabel('Older (base)').fill('npm:demo@1.0.0');
    await page.getByLabel('Newer (head)').fill('npm:demo@1.1.0');
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.getByTestId('compare-results').waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Show the diff of src/index.js' }).click();
    expect(await page.locator('.diff .diff-add').first().textContent()).toContain('export * from');
    expect(c.problems).toEqual([]);
  });

  it('is readable at 375 and 1440 pixels wide (screenshots under test-output/console)', async () => {
    const { page } = c;
    await page.getByRole('tab', { name: 'Explorer' }).click();
    for (const width of [375, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await page.getByTestId('file-content').waitFor();
      expect(await overflowsHorizontally(page), `overflow at ${width}px`).toBe(false);
      expect(await unnamedControls(page)).toEqual([]);
      await screenshot(page, `explorer-${width}`);
    }
    const origin = new URL(base).origin;
    expect(c.requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(c.problems).toEqual([]);
  });
});
