import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawlProbe, type CrawlProbe } from '../helpers/crawl-probe.js';
import { htmlPage, type SiteResource } from '../helpers/docs-site.js';

/**
 * robots.txt as a denial of service (issue #29, item 4): `Disallow: /` followed by 4.5 MB of `*`
 * cost the worker 146 s of CPU on its event loop, checking each URL against the pattern, and a
 * tiny lockfile job of the same process waited 138 s. Now robots.txt is read up to 500 KiB (a line
 * up to 16,664 characters), matched in linear time, and the crawl yields between pages.
 */

const STARS = '*'.repeat(4_500_000);
const PAGES = 40;

function siteResources(robots: string): Record<string, SiteResource> {
  const pages = Array.from({ length: PAGES }, (_, i) => `/docs/p${i}`);
  const r: Record<string, SiteResource> = {
    // Bytes, so the fixture server sends them without rewriting megabytes on this event loop.
    '/robots.txt': { type: 'text/plain', body: Buffer.from(robots, 'utf8') },
    '/sitemap.xml': {
      type: 'application/xml',
      body: `<?xml version="1.0"?><urlset>${[...pages, '/private/secret'].map((p) => `<url><loc>{origin}${p}</loc></url>`).join('')}</urlset>`,
    },
    '/docs': htmlPage('Docs', 'Home', pages.slice(0, 5)),
    '/private/secret': htmlPage('Secret', 'never stored'),
  };
  for (const p of pages) r[p] = htmlPage(p, `text of ${p}`);
  return r;
}

let probe: CrawlProbe;

beforeAll(async () => {
  probe = await startCrawlProbe({ SITE_MAX_PAGES: '100' });
});

afterAll(async () => {
  await probe.close();
});

describe('a hostile robots.txt', () => {
  it('obeys `Disallow: /` followed by 4.5 MB of `*` without holding the event loop', async () => {
    const run = await probe.hostileAgainstControl(siteResources(`User-agent: *\nDisallow: /${STARS}\n`), siteResources('User-agent: *\nDisallow: /\n'));
    const page = await probe.list({ target: run.target });
    expect(page.entries).toEqual([]);
    expect(page.coverage_state).toBe('none');
    expect(page.coverage_reason).toContain('robots.txt disallows the pages of this scope');
    expect(page.coverage_reason).toContain('robots.txt is longer than 512000 bytes');
  }, 300_000);

  it('matches a pattern of megabytes of `*` in linear time and crawls what it allows', async () => {
    const run = await probe.hostileAgainstControl(
      siteResources(`User-agent: *\nDisallow: /docs/p1$\nDisallow: /private${STARS}\nDisallow: /docs/\n`),
      siteResources('User-agent: *\nDisallow: /docs/p1$\nDisallow: /private\n'),
    );
    const page = await probe.list({ target: run.target, recursive: true, limit: 100 });
    const paths = page.entries.map((e) => e.path);
    // The landing page and every page but the one `$` anchors (p10…p19 share its prefix and stay allowed).
    expect(paths).toHaveLength(PAGES);
    expect(paths).not.toContain('p1');
    expect(paths).toContain('p10');
    expect(run.site.requested()).not.toContain('/private/secret');
    // The rule after the 512,000th byte (`Disallow: /docs/`) is not read.
    expect(page.coverage_reason).toContain('robots.txt is longer than 512000 bytes');
  }, 300_000);
});
