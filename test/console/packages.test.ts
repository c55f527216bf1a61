import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorkers } from '../../src/processes/workers.js';
import { HAS_CHROMIUM, launchChromium, openConsole, overflowsHorizontally, screenshot, unnamedControls, type ConsolePage } from '../helpers/browser.js';
import { isPackageTarget, targetOfPurl } from '../../console/src/explorer/target-input.js';
import { formatBytes } from '../../console/src/ui/format.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { packageTarball } from '../helpers/tarball.js';

/**
 * The package page and the upgrade review in Chromium, against the npm fixture registry: the
 * recorded packument of a deprecated package (har-validator), a package whose upgrade adds a
 * postinstall script and a dependency, and one with a long name for the narrow layout.
 */

const HAR_VALIDATOR = JSON.parse(readFileSync(new URL('../fixtures/packages/har-validator.packument.json', import.meta.url), 'utf8')) as unknown;
const LONG_NAME = 'an-exceptionally-long-package-name-for-narrow-screens-layout';
const V1_FILES = { 'package.json': '{"name":"demo-template","version":"1.0.0"}\n', 'index.js': 'module.exports = 1;\n', 'legacy.js': 'module.exports = 2;\n' };
const NOTES = Array.from({ length: 120 }, (_, i) => `note ${i + 1}`).join('\n');
const V2_FILES = { 'package.json': '{"name":"demo-template","version":"2.0.0"}\n', 'index.js': 'module.exports = 1;\n', 'install.js': 'console.log("setup");\n', 'notes.txt': NOTES };

/** A CycloneDX document whose one component is the deprecated npm version. */
const INVENTORY = {
  bomFormat: 'CycloneDX',
  specVersion: '1.6',
  serialNumber: 'urn:uuid:11111111-1111-4111-8111-111111111111',
  version: 1,
  metadata: { component: { 'bom-ref': 'root', type: 'application', name: 'app', version: '1.0.0' } },
  components: [
    { 'bom-ref': 'pkg:npm/har-validator@5.1.3', type: 'library', name: 'har-validator', version: '5.1.3', purl: 'pkg:npm/har-validator@5.1.3', licenses: [{ expression: 'MIT' }] },
    { 'bom-ref': 'pkg:generic/blob@1', type: 'library', name: 'blob', version: '1', purl: 'pkg:generic/blob@1' },
  ],
  dependencies: [{ ref: 'root', dependsOn: ['pkg:npm/har-validator@5.1.3', 'pkg:generic/blob@1'] }],
};

/** One attribute of every element a locator finds, in document order. */
async function attributes(locator: Locator, name: string): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (const element of await locator.all()) out.push(await element.getAttribute(name));
  return out;
}

describe('the package target of a package URL', () => {
  it.each([
    ['pkg:npm/express@4.17.1', 'npm:express@4.17.1'],
    ['pkg:npm/%40babel/core@7.24.0', 'npm:@babel/core@7.24.0'],
    ['pkg:pypi/requests@2.31.0?file_name=requests-2.31.0.tar.gz', 'pypi:requests@2.31.0'],
    ['pkg:cargo/serde@1.0.197', 'crates:serde@1.0.197'],
    ['pkg:golang/github.com/gin-gonic/gin@v1.9.1', 'go:github.com/gin-gonic/gin@v1.9.1'],
    ['pkg:maven/org.apache.commons/commons-lang3@3.14.0?type=jar', 'maven:org.apache.commons:commons-lang3@3.14.0'],
    ['pkg:gem/rack@3.0.9', 'rubygems:rack@3.0.9'],
    ['pkg:nuget/Newtonsoft.Json@13.0.3', 'nuget:Newtonsoft.Json@13.0.3'],
    ['pkg:composer/psr/log@3.0.0', 'packagist:psr/log@3.0.0'],
    ['pkg:pub/http@1.2.0', 'pub:http@1.2.0'],
    ['pkg:hex/jason@1.4.1', 'hex:jason@1.4.1'],
    ['pkg:npm/left-pad', 'npm:left-pad'],
  ])('%s → %s', (purl, target) => {
    expect(targetOfPurl(purl)).toBe(target);
    expect(isPackageTarget(target)).toBe(true);
  });

  it.each(['pkg:generic/blob@1', 'pkg:github/owner/repo@v1', 'pkg:maven/commons-lang3@3', 'pkg:composer/log@1', 'not a purl', 'pkg:npm/%E0%A4%A@1'])('%s has none', (purl) => {
    expect(targetOfPurl(purl)).toBeNull();
  });

  it('tells package targets from repository and site targets', () => {
    expect(isPackageTarget('github:owner/repo')).toBe(false);
    expect(isPackageTarget('site:docs.example.com')).toBe(false);
    expect(isPackageTarget('npm:')).toBe(false);
  });
});

describe.skipIf(!HAS_CHROMIUM)('the package page in Chromium', () => {
  let h: JobsHarness;
  let workers: RunningWorkers | undefined;
  let base: string;
  let browser: Browser;
  let c: ConsolePage;
  const dir = mkdtempSync(join(tmpdir(), 'pkgscope-console-packages-'));
  const inventoryFile = join(dir, 'app.cdx.json');
  const otherInventoryFile = join(dir, 'other.cdx.json');

  beforeAll(async () => {
    writeFileSync(inventoryFile, JSON.stringify(INVENTORY));
    writeFileSync(otherInventoryFile, JSON.stringify(INVENTORY));
    h = await startJobsHarness(
      { ADVISORY_DB_URL: 'off' },
      {
        rawPackument: (name) => (name === 'har-validator' ? HAR_VALIDATOR : undefined),
        packages: {
          'demo-template': {
            versions: {
              '1.0.0': { license: 'MIT', dependencies: { 'left-pad': '^1.3.0' }, scripts: { test: 'node test.js' }, _tarball: await packageTarball(V1_FILES) },
              '2.0.0': {
                license: 'MIT',
                dependencies: { 'left-pad': '^1.3.0', 'right-pad': '^1.0.1' },
                scripts: { test: 'node test.js', postinstall: 'node install.js' },
                _tarball: await packageTarball(V2_FILES),
              },
            },
          },
          [LONG_NAME]: { versions: { '1.0.0': { license: 'MIT', description: 'A package with a long name.', dependencies: { [`${LONG_NAME}-helper`]: '^1.0.0', 'left-pad': '^1.3.0' } } } },
        },
      },
    );
    workers = await h.startWorkers();
    const token = await h.token('console-packages');
    base = await h.listen();
    browser = await launchChromium();
    c = await openConsole(browser, base);
    await c.page.getByLabel('Bearer token').fill(token);
  }, 120_000);

  afterAll(async () => {
    await (browser as Browser | undefined)?.close();
    await workers?.close();
    await (h as JobsHarness | undefined)?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const inspect = async (target: string): Promise<void> => {
    const { page } = c;
    await page.getByRole('tab', { name: 'Package' }).click();
    await page.getByLabel('Package target').fill(target);
    await page.getByTestId('package-submit').click();
  };

  it("shows a deprecated npm version's facts, dependencies and recent versions, and links to its files", async () => {
    const { page } = c;
    await inspect('npm:har-validator@5.1.3');
    const facts = page.getByTestId('release-facts');
    await facts.waitFor();
    expect(await page.getByTestId('package-page').getAttribute('data-target')).toBe('npm:har-validator@5.1.3');
    expect(await page.getByTestId('fact-version').textContent()).toBe('5.1.3');
    expect(await page.getByTestId('fact-status').textContent()).toBe('deprecated');
    expect(await page.getByTestId('standing-deprecated').textContent()).toBe('This version is deprecated: this library is no longer supported');
    expect(await page.getByTestId('fact-latest').textContent()).toContain('5.1.5');
    expect(await page.getByTestId('fact-license').textContent()).toBe('MIT');
    // npm states install scripts; this version has none (its scripts are lint and test only).
    expect(await page.getByTestId('fact-install-scripts').textContent()).toBe('none');
    expect(await facts.getByRole('link', { name: 'https://github.com/ahmadnassri/node-har-validator', exact: true }).getAttribute('href')).toBe('https://github.com/ahmadnassri/node-har-validator');
    expect(await attributes(page.locator('[data-testid="dependencies-table"] tbody tr'), 'data-name')).toContain('ajv');
    expect(await attributes(page.locator('[data-testid="versions-table"] tbody tr'), 'data-version')).toEqual(['5.1.5', '5.1.3', '5.1.0']);
    expect(await page.getByTestId('vulnerabilities-note').count()).toBe(1);

    // Its changelog: the answer of the changelog route, its coverage said even when no file was read.
    await page.getByTestId('package-changelog').click();
    await page.getByTestId('package-changelog-view').waitFor();
    expect(await page.getByTestId('changelog-coverage').textContent()).toMatch(/^Coverage: (complete|partial|none|not_available)/);
    expect(await page.locator('#changelog-heading').textContent()).toContain('up to 5.1.3');

    // Its files: the explorer of the same target.
    await page.getByTestId('package-files').click();
    expect(await page.getByRole('tab', { name: 'Explorer' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByLabel('Target to browse').inputValue()).toBe('npm:har-validator@5.1.3');
    await page.getByTestId('explorer-package-page').click();
    expect(await page.getByRole('tab', { name: 'Package' }).getAttribute('aria-selected')).toBe('true');
    await page.getByTestId('release-facts').waitFor();
    expect(c.problems).toEqual([]);
  });

  it('opens the upgrade review of a version chosen from the versions list: the added install script and dependency, side by side', async () => {
    const { page } = c;
    await inspect('npm:demo-template@1.0.0');
    await page.getByTestId('versions-table').waitFor();
    await page.getByRole('button', { name: 'Review the upgrade from 1.0.0 to 2.0.0' }).click();
    const review = page.getByTestId('upgrade-review');
    await review.locator('[data-testid="review-install-scripts"]').waitFor();
    expect(await review.getAttribute('data-from')).toBe('1.0.0');
    expect(await review.getAttribute('data-to')).toBe('2.0.0');
    const script = review.locator('[data-testid="review-install-scripts"] tr[data-script="postinstall"]');
    expect(await script.getAttribute('data-change')).toBe('added');
    expect(await script.locator('td[data-label="To"]').textContent()).toBe('node install.js');
    expect(await review.locator('[data-testid="review-dependencies"] tr[data-name="right-pad"]').getAttribute('data-change')).toBe('added');
    expect(await attributes(review.locator('[data-testid="review-breaking"] li'), 'data-kind')).toContain('major_bump');
    // The two versions side by side, each in its own column of one row.
    const from = await page.getByTestId('review-side-from').boundingBox();
    const to = await page.getByTestId('review-side-to').boundingBox();
    expect(from !== null && to !== null && Math.abs(from.y - to.y) < 1 && from.x < to.x).toBe(true);
    // Once the workers have prepared both versions, the file changes and archive sizes arrive.
    const files = review.getByTestId('review-files');
    await files.waitFor({ timeout: 90_000 });
    expect(await files.locator('tr[data-change="added"] td[data-label="Files"]').textContent()).toBe('2');
    expect(await files.locator('tr[data-change="removed"] td[data-label="Files"]').textContent()).toBe('1');
    const bytes = (files: Record<string, string>) => Object.values(files).reduce((n, text) => n + Buffer.byteLength(text), 0);
    expect(await page.getByTestId('review-size-from').textContent()).toBe(`3 files, ${formatBytes(bytes(V1_FILES))}`);
    expect(await page.getByTestId('review-size-to').textContent()).toBe(`4 files, ${formatBytes(bytes(V2_FILES))}`);
    await screenshot(page, 'upgrade-review-1280');
    expect(c.problems).toEqual([]);
  }, 120_000);

  it('links an SBOM component to its package page and its files, where its purl has a package target', async () => {
    const { page } = c;
    await page.getByRole('tab', { name: 'Inventory' }).click();
    await page.getByLabel('Open a CycloneDX JSON file').setInputFiles(inventoryFile);
    await page.locator('[data-testid="component-rows"] [role="row"][data-ref="pkg:generic/blob@1"]').click();
    // A generic purl names no package the service can inspect: no links.
    expect(await page.getByTestId('component-links').count()).toBe(0);
    await page.locator('[data-testid="component-rows"] [role="row"][data-ref="pkg:npm/har-validator@5.1.3"]').click();
    expect(await page.getByTestId('component-links').getAttribute('data-target')).toBe('npm:har-validator@5.1.3');
    await page.getByRole('button', { name: 'Package page of npm:har-validator@5.1.3' }).click();
    expect(await page.getByRole('tab', { name: 'Package' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByLabel('Package target').inputValue()).toBe('npm:har-validator@5.1.3');
    await page.locator('[data-testid="package-page"][data-target="npm:har-validator@5.1.3"]').waitFor();
    expect(await page.getByTestId('fact-status').textContent()).toBe('deprecated');

    await page.getByRole('tab', { name: 'Inventory' }).click();
    await page.getByRole('button', { name: 'Browse the files of npm:har-validator@5.1.3' }).click();
    expect(await page.getByRole('tab', { name: 'Explorer' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByLabel('Target to browse').inputValue()).toBe('npm:har-validator@5.1.3');
    expect(c.problems).toEqual([]);
  });

  it('clears the status line and the notices of the previous view when the view changes', async () => {
    const { page } = c;
    await page.getByRole('tab', { name: 'Inventory' }).click();
    await page.getByLabel('Open a CycloneDX JSON file').setInputFiles(otherInventoryFile);
    const status = page.getByTestId('progress-status');
    await page.locator('[data-testid="progress-status"]', { hasText: 'Inventory from other.cdx.json opened.' }).waitFor();
    await page.getByRole('tab', { name: 'Package' }).click();
    expect(await status.textContent()).toBe('');

    await inspect('npm:demo-template@9.9.9');
    await page.getByTestId('package-error').waitFor();
    expect(await page.getByTestId('package-error-code').textContent()).toBe('PACKAGE_NOT_FOUND');
    await page.getByRole('tab', { name: 'Explorer' }).click();
    await page.getByRole('tab', { name: 'Package' }).click();
    expect(await page.getByTestId('package-error').count()).toBe(0);
    expect(c.problems).toEqual([]);
  });

  it('at 375 pixels stacks table rows, keeps the page within the screen and never breaks a long name mid-word', async () => {
    const { page } = c;
    await page.setViewportSize({ width: 375, height: 800 });
    await inspect(`npm:${LONG_NAME}@1.0.0`);
    await page.getByTestId('dependencies-table').waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await overflowsHorizontally(page)).toBe(false);

    // A stacked row: cells are blocks one under the other, each labelled with its column.
    const layout = await page.evaluate<{ displays: string[]; tops: number[]; label: string; headVisible: boolean }>(`(() => {
      const tr = document.querySelector('[data-testid="dependencies-table"] tbody tr[data-name="${LONG_NAME}-helper"]');
      const cells = [...tr.querySelectorAll('td')];
      return {
        displays: cells.map((td) => getComputedStyle(td).display),
        tops: cells.map((td) => td.getBoundingClientRect().top),
        label: getComputedStyle(cells[0], '::before').content,
        headVisible: tr.closest('table').querySelector('thead').getBoundingClientRect().height > 1,
      };
    })()`);
    expect(layout.displays.every((d) => d === 'block')).toBe(true);
    expect(layout.tops.every((top, i) => i === 0 || top > (layout.tops[i - 1] ?? Infinity))).toBe(true);
    expect(layout.label).toMatch(/^(attr\(data-label\)|"Name")$/);
    expect(layout.headVisible).toBe(false);

    // The long names (heading and table cell) are each on one line, scrolled inside their box rather than broken.
    for (const selector of ['[data-testid="package-name"]', `[data-testid="dependencies-table"] tr[data-name="${LONG_NAME}-helper"] .name`]) {
      const name = await page.evaluate<{ text: string; lines: number; right: number; scrolls: boolean }>(`(() => {
        const el = document.querySelector(${JSON.stringify(selector)});
        const range = document.createRange();
        range.selectNodeContents(el);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        return { text: el.textContent, lines: tops.size, right: el.getBoundingClientRect().right, scrolls: el.scrollWidth > el.clientWidth };
      })()`);
      expect(name.text).toContain(LONG_NAME);
      expect(name.lines).toBe(1);
      expect(name.right).toBeLessThanOrEqual(375);
      expect(name.scrolls).toBe(true);
    }
    const styles = await page.evaluate<{ wordBreak: string; overflowWrap: string }>(`(() => {
      const style = getComputedStyle(document.querySelector('[data-testid="package-name"]'));
      return { wordBreak: style.wordBreak, overflowWrap: style.overflowWrap };
    })()`);
    expect(styles).toEqual({ wordBreak: 'normal', overflowWrap: 'normal' });
    expect(await unnamedControls(page)).toEqual([]);
    await screenshot(page, 'package-375');

    // The upgrade review and the explorer's listing are within the screen too.
    await inspect('npm:demo-template@1.0.0');
    await page.getByRole('button', { name: 'Review the upgrade from 1.0.0 to 2.0.0' }).click();
    await page.getByTestId('review-install-scripts').waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await screenshot(page, 'upgrade-review-375');

    // From the review to the new version's files; a file opened below a long listing is scrolled into view.
    await page.getByRole('button', { name: 'Browse the files of npm:demo-template@2.0.0' }).click();
    await page.getByRole('button', { name: 'Read notes.txt' }).click();
    await page.getByTestId('file-content').waitFor();
    const view = await page.evaluate<{ top: number; scrolled: number; room: number }>(
      `({ top: document.querySelector('[data-testid="file-view"]').getBoundingClientRect().top, scrolled: window.scrollY, room: document.documentElement.scrollHeight - window.innerHeight - window.scrollY })`,
    );
    // Its heading at the top of the screen, or as near as the end of the page lets it.
    expect(view.scrolled).toBeGreaterThan(0);
    expect(view.top).toBeGreaterThanOrEqual(-1);
    expect(view.top < 2 || view.room < 2).toBe(true);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(await overflowsHorizontally(page)).toBe(false);
    await screenshot(page, 'package-files-1440');
    expect(c.problems).toEqual([]);
  }, 60_000);
});
