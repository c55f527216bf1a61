import type { InventoryFacts } from '../../db/schema/index.js';

/** Longest stored page path (query included), as archive paths (INVENTORY_MAX_PATH_BYTES' default): Postgres keys stay small. */
export const MAX_PAGE_PATH_BYTES = 2_048;

/** The crawl caps a coverage reason names. */
export interface CoverageLimits {
  readonly maxPages: number;
  readonly maxDepth: number;
  readonly maxDurationMs: number;
  readonly maxPageBytes: number;
  readonly maxRobotsBytes: number;
  readonly maxSitemapUrls: number;
  readonly maxSitemapBytes: number;
}

/** What one crawl met: the counts its coverage is reported from. */
export interface Tally {
  stored: number;
  notFound: number;
  errors: number;
  oversized: number;
  skippedTypes: number;
  robotsSkipped: number;
  pageCapped: boolean;
  depthCapped: boolean;
  timeCapped: boolean;
  firstError: string | null;
  /** The sitemaps listed more in-scope pages than the crawl takes from them. */
  sitemapUrlsCapped: boolean;
  /** Sitemaps read in part (over the sitemap byte cap or the page byte cap). */
  sitemapsTruncated: number;
  /** robots.txt was longer than the bytes read. */
  robotsTruncated: boolean;
  /** Pages not stored because their path is longer than a stored path may be. */
  longPaths: number;
}

/** How much of a site one crawl stored, and why not more: `complete`, `capped`, `partial` or `none`. */
export function coverageOf(t: Tally, limits: CoverageLimits): Pick<InventoryFacts, 'coverage' | 'coverageReason'> {
  if (t.stored === 0) {
    const why =
      t.robotsSkipped > 0
        ? 'robots.txt disallows the pages of this scope'
        : t.firstError !== null
          ? t.firstError
          : t.notFound > 0
            ? 'the landing page was not found (HTTP 404) and no sitemap lists pages in this scope'
            : 'no HTML or text page was found in this scope';
    const robots = t.robotsTruncated ? ` (robots.txt is longer than ${limits.maxRobotsBytes} bytes; its first ${limits.maxRobotsBytes} were obeyed)` : '';
    return { coverage: 'none', coverageReason: `No page stored: ${why}${robots}.` };
  }
  const caps: string[] = [];
  if (t.pageCapped) caps.push(`the page cap of ${limits.maxPages} was reached`);
  if (t.depthCapped) caps.push(`links deeper than ${limits.maxDepth} were not followed`);
  if (t.timeCapped) caps.push(`the crawl time cap of ${Math.round(limits.maxDurationMs / 1000)} s was reached`);
  if (t.oversized > 0) caps.push(`${t.oversized} page(s) over the ${limits.maxPageBytes}-byte page cap were skipped`);
  if (t.sitemapUrlsCapped) caps.push(`the sitemaps list more than ${limits.maxSitemapUrls} pages; the rest were not queued`);
  if (t.sitemapsTruncated > 0) caps.push(`${t.sitemapsTruncated} sitemap(s) over the ${Math.min(limits.maxSitemapBytes, limits.maxPageBytes)}-byte cap were read in part`);
  const extras: string[] = [];
  if (t.longPaths > 0) extras.push(`${t.longPaths} page(s) with a path over ${MAX_PAGE_PATH_BYTES} bytes were not stored`);
  if (t.robotsTruncated) extras.push(`robots.txt is longer than ${limits.maxRobotsBytes} bytes; its first ${limits.maxRobotsBytes} were obeyed`);
  if (t.robotsSkipped > 0) extras.push(`${t.robotsSkipped} URL(s) disallowed by robots.txt`);
  if (t.errors > 0) extras.push(`${t.errors} URL(s) failed (first: ${t.firstError ?? 'unknown'})`);
  const summary = `${t.stored} page(s) stored`;
  if (caps.length > 0) return { coverage: 'capped', coverageReason: `${summary}; ${[...caps, ...extras].join('; ')}.` };
  if (t.errors > 0) return { coverage: 'partial', coverageReason: `${summary}; ${extras.join('; ')}.` };
  return {
    coverage: 'complete',
    coverageReason: `${summary}; every in-scope link and sitemap entry was followed${extras.length > 0 ? ` (${extras.join('; ')})` : ''}.`,
  };
}
