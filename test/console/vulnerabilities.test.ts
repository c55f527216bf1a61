import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCycloneDx } from '../../console/src/sbom/document.js';
import { byComponent, filterVulnerabilities, fixFor, SEVERITIES } from '../../console/src/sbom/vulnerabilities.js';
import { consoleRoutes } from '../../src/routes/console.js';
import { renderCycloneDx } from '../../src/sbom/render/cyclonedx.js';
import { BoundedOutput } from '../../src/sbom/render/output.js';
import { renderInput, sampleInventory, sampleReport } from '../advisories/render-fixtures.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { HAS_CHROMIUM, launchChromium, openConsole, overflowsHorizontally, screenshot, unnamedControls, type ConsolePage } from '../helpers/browser.js';

describe('reading the vulnerabilities of a document from any tool', () => {
  const doc = {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    components: [{ 'bom-ref': 'a', name: 'a', version: '1.0.0' }, { 'bom-ref': 'b', name: 'b', version: '2.0.0' }],
    vulnerabilities: [
      // Another scanner's: several ratings (the worst and the highest score count), a recommendation of its own.
      { id: 'CVE-2024-1', ratings: [{ severity: 'low', score: 3.1, method: 'CVSSv31' }, { severity: 'high', score: 7.5, method: 'CVSSv4' }, { severity: 'bogus', score: 'x' }], affects: [{ ref: 'a' }], recommendation: 'Upgrade' },
      { id: 'CVE-2024-2', ratings: 'not a list', affects: [{ ref: 'a', versions: [{ version: '1.0.0' }] }, { ref: 'b' }, { nothing: true }], references: [{ id: 'GHSA-x' }] },
      { ratings: [{ severity: 'critical' }], affects: [{ ref: 'b' }] },
      'not an object',
    ],
  };

  it('keeps what is well-formed, worst first, and ignores the rest', () => {
    const sbom = readCycloneDx(doc);
    const vulnerabilities = sbom.vulnerabilities ?? [];
    expect(vulnerabilities.map((v) => [v.id, v.severity, v.score, v.method])).toEqual([
      ['CVE-2024-1', 'high', 7.5, 'CVSSv4'],
      ['CVE-2024-2', 'unknown', null, null],
    ]);
    expect(vulnerabilities[1]?.affects).toEqual([{ ref: 'a', version: '1.0.0' }, { ref: 'b', version: null }]);
    expect([...byComponent(vulnerabilities).entries()].map(([ref, list]) => [ref, list.map((v) => v.id)])).toEqual([
      ['a', ['CVE-2024-1', 'CVE-2024-2']],
      ['b', ['CVE-2024-2']],
    ]);
    // Severity and text filters (an alias, an affected component's name).
    expect(filterVulnerabilities(vulnerabilities, new Set(['high'] as const), '', (r) => r).map((v) => v.id)).toEqual(['CVE-2024-1']);
    expect(filterVulnerabilities(vulnerabilities, new Set(SEVERITIES), 'ghsa-x', (r) => r).map((v) => v.id)).toEqual(['CVE-2024-2']);
    expect(filterVulnerabilities(vulnerabilities, new Set(SEVERITIES), 'b', (r) => r).map((v) => v.id)).toEqual(['CVE-2024-2']);
    // Another tool's recommendation is shown whole.
    expect(vulnerabilities[0] && fixFor(vulnerabilities[0], 'a', '1.0.0')).toBe('Upgrade');
    // A document without the member has none (not asked for), distinct from an empty list.
    expect(readCycloneDx({ ...doc, vulnerabilities: undefined }).vulnerabilities).toBeNull();
    expect(readCycloneDx({ ...doc, vulnerabilities: [] }).vulnerabilities).toEqual([]);
  });
});

/**
 * The inventory view of a CycloneDX document pkgscope wrote with vulnerabilities (real OSV
 * advisories from the PyPI and Go zips, matched to a small project): counts by severity, the
 * severity and text filters, an advisory's fix and the paths it is reached through, and the
 * advisories on the component.
 */
/** An attribute of every element `locator` finds, in order. */
async function attributes(locator: Locator, name: string): Promise<(string | null)[]> {
  const values: (string | null)[] = [];
  for (const element of await locator.all()) values.push(await element.getAttribute(name));
  return values;
}

describe.skipIf(!HAS_CHROMIUM)('the vulnerabilities of an inventory in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let c: ConsolePage;
  const dir = mkdtempSync(join(tmpdir(), 'pkgscope-vulnerabilities-'));
  const vulnerable = join(dir, 'vulnerable.cdx.json');
  const plain = join(dir, 'plain.cdx.json');

  beforeAll(async () => {
    for (const [file, report] of [
      [vulnerable, await sampleReport()],
      [plain, undefined],
    ] as const) {
      const out = new BoundedOutput();
      renderCycloneDx(renderInput(sampleInventory(), report), out);
      writeFileSync(file, out.toString());
    }
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

  it('counts by severity, filters by severity and text, and states the advisory snapshot', async () => {
    const { page } = c;
    await page.getByRole('tab', { name: 'Inventory' }).click();
    await page.getByLabel('Open a CycloneDX JSON file').setInputFiles(vulnerable);
    await page.getByTestId('vulnerabilities').waitFor();
    const count = async (severity: string): Promise<string | null> => page.getByTestId(`severity-count-${severity}`).getAttribute('data-count');
    expect([await count('critical'), await count('high'), await count('medium'), await count('unknown')]).toEqual(['1', '2', '2', '6']);
    expect(await page.getByTestId('severity-count-low').count()).toBe(0);
    expect(await page.getByTestId('vulnerability-count').getAttribute('data-count')).toBe('11');
    // Worst first.
    expect(await page.getByTestId('vulnerability').first().getAttribute('data-id')).toBe('PKGSCOPE-TEST-1');
    expect(await page.getByTestId('advisory-snapshot').textContent()).toContain('PyPI: 2,661 advisories, newest 2024-10-10');

    await page.getByTestId('severity-unknown').uncheck();
    await page.locator('[data-testid="vulnerability-count"][data-count="5"]').waitFor();
    await page.getByLabel('Filter vulnerabilities').fill('urllib3');
    await page.locator('[data-testid="vulnerability-count"][data-count="2"]').waitFor();
    const ids = await attributes(page.getByTestId('vulnerability'), 'data-id');
    expect(ids).toEqual(['PYSEC-2023-192', 'PYSEC-2023-212']);
    // An alias finds its advisory too.
    await page.getByLabel('Filter vulnerabilities').fill('CVE-2019-10906');
    await page.getByTestId('severity-unknown').check();
    await page.locator('[data-testid="vulnerability-count"][data-count="1"]').waitFor();
    expect(await page.getByTestId('vulnerability').getAttribute('data-id')).toBe('PYSEC-2019-217');
    expect(c.problems).toEqual([]);
  });

  it('opens an advisory: its fix, the paths it is reached through, and the component with its advisories', async () => {
    const { page } = c;
    await page.getByLabel('Filter vulnerabilities').fill('');
    const item = page.locator('[data-testid="vulnerability"][data-id="PYSEC-2023-192"]');
    await item.getByRole('button', { name: /PYSEC-2023-192/ }).click();
    const affected = item.getByTestId('affected-component');
    await affected.waitFor();
    expect(await affected.getByTestId('fix').textContent()).toBe('urllib3 1.24.1: upgrade to 1.26.17 or 2.0.6');
    const path = await attributes(affected.getByTestId('affected-through').first().locator(':scope > li'), 'data-ref');
    expect(path).toEqual(['app', 'pypi:requests@2.19.0', 'pypi:urllib3@1.24.1']);
    expect(await item.getByTestId('vulnerability-detail').textContent()).toContain('8.1');

    await affected.getByRole('button', { name: 'urllib3@1.24.1' }).click();
    const detail = page.locator('[data-testid="component-detail"][data-ref="pypi:urllib3@1.24.1"]');
    await detail.waitFor();
    const listed = await attributes(detail.getByTestId('component-vulnerabilities').locator(':scope > li'), 'data-id');
    expect(listed).toEqual(['PYSEC-2023-192', 'PYSEC-2023-212', 'PYSEC-2019-132', 'PYSEC-2019-133']);
    expect(await detail.getByTestId('component-fix').nth(2).textContent()).toBe('(urllib3 1.24.1: upgrade to 1.24.3)');
    // A component without advisories says nothing of them.
    await page.getByLabel('Filter components').fill('requests');
    await page.locator('[data-testid="sbom-count"][data-count="1"]').waitFor();
    await page.locator('[role="row"][data-ref="pypi:requests@2.19.0"]').click();
    await page.locator('[data-testid="component-detail"][data-ref="pypi:requests@2.19.0"]').waitFor();
    expect(await page.getByTestId('component-vulnerabilities').count()).toBe(0);
    expect(c.problems).toEqual([]);
  });

  it('is readable at 375 and 1440 pixels wide with a name on every control, and shows no section for a document without vulnerabilities', async () => {
    const { page } = c;
    await page.getByLabel('Filter components').fill('');
    for (const width of [375, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await overflowsHorizontally(page)).toBe(false);
      expect(await unnamedControls(page)).toEqual([]);
      await screenshot(page, `vulnerabilities-${width}`);
    }
    await page.getByLabel('Open a CycloneDX JSON file').setInputFiles(plain);
    await page.locator('[data-testid="sbom-count"][data-count="6"]').waitFor();
    expect(await page.getByTestId('vulnerabilities').count()).toBe(0);
    expect(c.problems).toEqual([]);
  });
});
