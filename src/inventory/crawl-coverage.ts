import type { InventoryFacts } from '../db/schema/index.js';

/** The crawl caps a coverage reason names. */
export interface CoverageLimits {
  readonly maxPages: number;
  readonly maxDepth: number;
  readonly maxDurationMs: number;
  readonly maxPageBytes: number;
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
    return { coverage: 'none', coverageReason: `No page stored: ${why}.` };
  }
  const caps: string[] = [];
  if (t.pageCapped) caps.push(`the page cap of ${limits.maxPages} was reached`);
  if (t.depthCapped) caps.push(`links deeper than ${limits.maxDepth} were not followed`);
  if (t.timeCapped) caps.push(`the crawl time cap of ${Math.round(limits.maxDurationMs / 1000)} s was reached`);
  if (t.oversized > 0) caps.push(`${t.oversized} page(s) over the ${limits.maxPageBytes}-byte page cap were skipped`);
  const extras: string[] = [];
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
