import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM) {
  console.warn(`console browser tests skipped: no Chromium at ${CHROMIUM} (install Debian's chromium or set CHROMIUM_PATH)`);
}

/** Screenshots of test runs (gitignored). */
export const SCREENSHOTS = fileURLToPath(new URL('../../test-output/console/', import.meta.url));

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

export interface ConsolePage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Page errors, CSP violations and requests to any other origin: a test ends expecting none. */
  readonly problems: string[];
  /** Every URL the page asked for. */
  readonly requests: string[];
}

/**
 * A fresh context on `<base>/console` where every request is routed: one to another origin is
 * aborted and recorded as a problem, so a test fails on any request that leaves the service.
 */
export async function openConsole(browser: Browser, base: string, options: { width?: number } = {}): Promise<ConsolePage> {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: options.width ?? 1280, height: 900 } });
  const origin = new URL(base).origin;
  const problems: string[] = [];
  const requests: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    requests.push(url);
    if (new URL(url).origin !== origin) {
      problems.push(`request to another origin: ${url}`);
      await route.abort('blockedbyclient');
      return;
    }
    await route.fallback();
  });
  const page = await context.newPage();
  // A wait for what the page shows next, not a speed bound: on a loaded two-core machine (two
  // suites side by side) a job the page follows took over 10 s to reach its next phase.
  page.setDefaultTimeout(30_000);
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    const text = message.text();
    if (/Content Security Policy|Trusted Type|TrustedScript|TrustedHTML/i.test(text)) problems.push(text);
  });
  await page.goto(`${base}/console`);
  await page.getByRole('tab', { name: 'Jobs' }).waitFor();
  return { context, page, problems, requests };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

/** Whether the page is wider than its viewport (something forces horizontal scrolling). */
export function overflowsHorizontally(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1');
}

/** Visible controls without an accessible name (label, aria-label(ledby), text or title), as HTML snippets. */
export function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('button, input, select, textarea, a[href], [role="grid"], [role="tab"], [tabindex="0"]')]
    .filter((e) => e.getClientRects().length > 0)
    .filter((e) => {
      const byIds = (e.getAttribute('aria-labelledby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join('').trim();
      const byLabels = e.labels ? [...e.labels].map((l) => l.textContent).join('').trim() : '';
      const ownText = e.tagName === 'INPUT' || e.tagName === 'SELECT' || e.tagName === 'TEXTAREA' ? '' : e.textContent.trim();
      return !(e.getAttribute('aria-label') || byIds || byLabels || ownText || e.getAttribute('title'));
    })
    .map((e) => e.outerHTML.slice(0, 160))`);
}
