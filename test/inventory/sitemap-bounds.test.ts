import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawlProbe, type CrawlProbe } from '../helpers/crawl-probe.js';
import { htmlPage, type SiteResource } from '../helpers/docs-site.js';

/**
 * Sitemaps as a memory bomb (issue #29, item 6): 20 sitemaps of 5 MB queued 1.8 M URLs and took
 * the worker from 163 MB to 1.2 GB. A crawl now takes at most SITE_MAX_SITEMAP_URLS page URLs
 * from its sitemaps (four times its page cap by default), reads each sitemap up to
 * SITE_MAX_SITEMAP_BYTES, parses in slices between turns of the event loop, and says what it
 * capped in `coverage_reason`. The API and the workers run in this process.
 */

const SITEMAPS = 20;
const SITEMAP_BYTES = 5 * 1024 * 1024;
const MAX_PAGES = 25;
const MB = 1024 * 1024;

/**
 * A sitemap listing distinct pages of this site, of about `bytes`, written straight into bytes
 * (served as they are): no megabyte strings left for the garbage collector to reclaim on this
 * event loop while the crawl is measured.
 */
function sitemap(origin: string, n: number, bytes: number): Buffer {
  const out = Buffer.alloc(bytes + 256);
  let at = out.write('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
  for (let i = 0; at < bytes; i++) at += out.write(`<url><loc>${origin}/docs/s${n}/page-${i}</loc><lastmod>2026-01-01</lastmod></url>`, at);
  at += out.write('</urlset>', at);
  return out.subarray(0, at);
}

/** Bytes of a sitemap listing about as many pages as the crawl takes from sitemaps (an entry is about 80 bytes). */
const CONTROL_BYTES = 4 * MAX_PAGES * 80;

/**
 * A site serving SITEMAPS sitemaps of SITEMAP_BYTES each, a landing page and ten real pages, whose
 * robots.txt names an index of the big sitemaps, or (`small`) of one sitemap listing about as
 * many pages as a crawl takes from sitemaps: the control, holding the same bytes in this process.
 */
function siteResources(small: boolean): (origin: string) => Record<string, SiteResource> {
  return (origin) => {
    const count = small ? 1 : SITEMAPS;
    const prefix = small ? '/small' : '/sitemaps';
    const r: Record<string, SiteResource> = {
      '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\nSitemap: {origin}/sitemap-index.xml\n' },
      '/sitemap-index.xml': {
        type: 'application/xml',
        body: `<?xml version="1.0"?><sitemapindex>${Array.from({ length: count }, (_, n) => `<sitemap><loc>{origin}${prefix}/${n}.xml</loc></sitemap>`).join('')}</sitemapindex>`,
      },
      '/docs': htmlPage('Docs', 'Home'),
    };
    for (let n = 0; n < SITEMAPS; n++) r[`/sitemaps/${n}.xml`] = { type: 'application/xml', body: sitemap(origin, n, SITEMAP_BYTES) };
    r['/small/0.xml'] = { type: 'application/xml', body: sitemap(origin, 0, CONTROL_BYTES) };
    for (let i = 0; i < 10; i++) r[`/docs/s0/page-${i}`] = htmlPage(`Page ${i}`, `text ${i}`);
    return r;
  };
}

let probe: CrawlProbe;

beforeAll(async () => {
  probe = await startCrawlProbe({ SITE_MAX_PAGES: String(MAX_PAGES) });
}, 120_000);

afterAll(async () => {
  await probe.close();
});

describe('sitemaps of millions of URLs', () => {
  it('queues at most four times the page cap from them, says so, and keeps the worker responsive and its memory bounded', async () => {
    const run = await probe.hostileAgainstControl(siteResources(false), siteResources(true));
    const page = await probe.list({ target: run.target, recursive: true, limit: 100 });
    expect(page.coverage_state).toBe('capped');
    expect(page.coverage_reason).toContain(`the sitemaps list more than ${4 * MAX_PAGES} pages; the rest were not queued`);
    // The first sitemap alone lists more than the crawl takes: the others are never fetched.
    const requested = run.site.requested();
    expect(requested.filter((p) => p.startsWith('/sitemaps/')).length).toBeLessThan(SITEMAPS);
    expect(requested.filter((p) => p.startsWith('/docs/')).length).toBeLessThanOrEqual(4 * MAX_PAGES + 1);
    expect(page.entries.map((e) => e.path)).toContain('s0/page-0');
    expect(run.rssGrowth).toBeLessThan(100 * MB);
  }, 600_000);
});
