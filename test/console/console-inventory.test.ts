import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../src/routes/console.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { HAS_CHROMIUM, launchChromium, openConsole, overflowsHorizontally, screenshot, unnamedControls, type ConsolePage } from '../helpers/browser.js';

const COUNT = 10_000;

/**
 * A CycloneDX document of 10,000 components: the root depends on c0…c99 and every ci on
 * c(i+100), so c250's only path is root → c50 → c150 → c250. Licenses cycle through an
 * expression, a named license and none.
 */
function bigDocument(): unknown {
  const components = Array.from({ length: COUNT }, (_, i) => ({
    'bom-ref': `c${i}`,
    type: 'library',
    name: `pkg-${i}`,
    version: `1.${i % 7}.0`,
    purl: `pkg:npm/pkg-${i}@1.${i % 7}.0`,
    scope: i % 10 === 0 ? 'excluded' : 'required',
    hashes: [{ alg: 'SHA-512', content: 'ab'.repeat(64) }],
    licenses: i % 3 === 0 ? [{ expression: 'MIT' }] : i % 3 === 1 ? [{ license: { name: 'Custom Terms' } }] : [],
    externalReferences: [{ type: 'vcs', url: `https://git.example.test/pkg-${i}.git` }],
    properties: [{ name: 'service:ecosystem', value: i % 4 === 0 ? 'pypi' : 'npm' }],
  }));
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.7',
    serialNumber: 'urn:uuid:00000000-0000-4000-8000-000000000000',
    version: 1,
    metadata: { timestamp: '2026-01-01T00:00:00Z', component: { 'bom-ref': 'root', type: 'application', name: 'big-project', version: '0.1.0' } },
    components,
    dependencies: [
      { ref: 'root', dependsOn: Array.from({ length: 100 }, (_, i) => `c${i}`) },
      ...components.map((_, i) => ({ ref: `c${i}`, dependsOn: i + 100 < COUNT ? [`c${i + 100}`] : [] })),
    ],
    compositions: [{ aggregate: 'incomplete', assemblies: [] }],
    properties: [
      { name: 'service:completeness', value: 'partial_manifest_inventory' },
      { name: 'service:resolution_basis', value: 'manifest_resolution' },
      { name: 'service:declarations', value: JSON.stringify([{ manifest: 'package.json', name: 'left-out', range: '^9', kind: 'dependencies' }]) },
      { name: 'service:notice', value: 'package.json was not resolved (resolution_failed).' },
    ],
  };
}

describe.skipIf(!HAS_CHROMIUM)('the inventory view in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let c: ConsolePage;
  const dir = mkdtempSync(join(tmpdir(), 'pkgscope-inventory-'));
  const big = join(dir, 'big.cdx.json');
  const notCdx = join(dir, 'other.json');

  beforeAll(async () => {
    writeFileSync(big, JSON.stringify(bigDocument()));
    writeFileSync(notCdx, JSON.stringify({ spdxVersion: 'SPDX-2.3' }));
    browser = await launchChromium();
    t = await startTestApp({ deps: { publicRoutes: [consoleRoutes()] } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    c = await openConsole(browser, base);
  });
  afterAll(async () => {
    await (browser as Browser | undefined)?.close();
    await (t as TestApp | undefined)?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a dropped-in document of 10,000 components, rendering only the rows in view', async () => {
    const { page } = c;
    await page.getByRole('tab', { name: 'Inventory' }).click();
    await page.getByLabel('Open a CycloneDX JSON file').setInputFiles(notCdx);
    expect(await page.getByTestId('inventory-error-detail').textContent()).toContain('not a CycloneDX JSON document');

    await page.getByLabel('Open a CycloneDX JSON file').setInputFiles(big);
    await page.getByTestId('sbom').waitFor();
    expect(await page.getByTestId('inventory-error').count()).toBe(0);
    expect(await page.getByTestId('sbom-count').getAttribute('data-count')).toBe(String(COUNT));
    const rendered = await page.locator('[data-testid="component-rows"] [role="row"]').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(80);

    // The license chart: the expression, the named license and the unknown, with their counts.
    const bar = (label: string) => page.getByTestId('license-chart').locator(`g[data-label="${label}"]`);
    expect(await bar('MIT').getAttribute('data-count')).toBe('3334');
    expect(await bar('Custom Terms').getAttribute('data-count')).toBe('3333');
    expect(await bar('unknown').getAttribute('data-count')).toBe('3333');
    expect(await bar('Custom Terms').getAttribute('class')).toContain('bar-named');
    expect(await page.getByTestId('ecosystem-chart').locator('g[data-label="pypi"]').getAttribute('data-count')).toBe('2500');
    expect(await page.getByTestId('scope-chart').locator('g[data-label="excluded"]').getAttribute('data-count')).toBe('1000');
    expect(await page.getByTestId('completeness').getAttribute('data-value')).toBe('partial_manifest_inventory');
    expect(await page.getByTestId('notice').textContent()).toContain('was not resolved');
    expect(await page.getByTestId('unresolved').textContent()).toContain('1 declared requirement');

    // Scrolled to the end, the last rows are rendered and the first are gone.
    await page.getByTestId('component-rows').hover();
    await page.mouse.wheel(0, COUNT * 40);
    await page.locator('[role="row"][data-ref="c9999"]').waitFor();
    expect(await page.locator('[role="row"][data-ref="c0"]').count()).toBe(0);
  });

  it('sorts, filters, moves by keyboard and shows why a component is there', async () => {
    const { page } = c;
    const firstRow = () => page.locator('[data-testid="component-rows"] [role="row"][aria-rowindex="2"]');
    await page.getByRole('button', { name: /^Sort by name/ }).click();
    await firstRow().waitFor();
    expect(await firstRow().getAttribute('data-ref')).toBe('c9999');
    await page.getByRole('button', { name: /^Sort by license/ }).click();
    expect(await firstRow().locator('[role="gridcell"]').nth(4).textContent()).toBe('Custom Terms');

    await page.getByLabel('Filter components').fill('pkg-42');
    await page.locator('[data-testid="sbom-count"][data-count="111"]').waitFor();
    await page.getByLabel('Filter components').fill('pkg:npm/pkg-250@');
    await page.locator('[data-testid="sbom-count"][data-count="1"]').waitFor();

    // Keyboard: focus the rows, End, Enter selects.
    await page.getByTestId('component-rows').focus();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    const detail = page.locator('[data-testid="component-detail"][data-ref="c250"]');
    await detail.waitFor();
    const path: string[] = [];
    for (const item of await detail.getByTestId('dependency-path').first().locator(':scope > li').all()) path.push((await item.getAttribute('data-ref')) ?? '');
    expect(path).toEqual(['root', 'c50', 'c150', 'c250']);
    expect(await page.getByTestId('component-purl').textContent()).toBe('pkg:npm/pkg-250@1.5.0');
    // A step of the path selects that component.
    await detail.getByRole('button', { name: 'pkg-150@1.3.0' }).click();
    await page.locator('[data-testid="component-detail"][data-ref="c150"]').waitFor();
    expect(c.problems).toEqual([]);
  });

  it('is readable at 375 and 1440 pixels wide, light and dark, with a name on every control (screenshots under test-output/console)', async () => {
    const { page } = c;
    await page.getByLabel('Filter components').fill('');
    for (const width of [375, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      for (const tab of ['Jobs', 'Inventory', 'Explorer', 'Search', 'Compare']) {
        await page.getByRole('tab', { name: tab }).click();
        expect(await overflowsHorizontally(page), `${tab} overflows at ${width}px`).toBe(false);
        expect(await unnamedControls(page), `${tab} at ${width}px`).toEqual([]);
        if (tab === 'Jobs' || tab === 'Inventory') await screenshot(page, `${tab.toLowerCase()}-${width}`);
      }
    }
    await page.getByRole('tab', { name: 'Inventory' }).click();
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor')).toBe('rgb(15, 19, 24)');
    await screenshot(page, 'inventory-1440-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor')).toBe('rgb(255, 255, 255)');
    // Every request the page made went to the service; none went anywhere else.
    const origin = new URL(base).origin;
    expect(c.requests.length).toBeGreaterThanOrEqual(3);
    expect(c.requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(c.problems).toEqual([]);
  });
});
