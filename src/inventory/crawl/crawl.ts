import { setImmediate as nextTurn } from 'node:timers/promises';
import type { InventoryFacts } from '../../db/schema/index.js';
import { coverageOf, MAX_PAGE_PATH_BYTES, type Tally } from './coverage.js';
import type { Logger } from '../../logger.js';
import { beginAttempt, EntryCollector, type Attempt } from '../prepare/package.js';
import type { StoredEntry } from '../query/query.js';
import { pageKind, type ParsedPage } from '../sources/site-page.js';
import { describeFailure, speaksNoTls, type FetchOutcome, type HostLimiter, type SiteFetcher } from '../sources/site-fetch.js';
import { canonicalLink, pagePath, readSitemaps } from '../sources/site-map.js';
import { parseRobots, type RobotsRules } from '../sources/site-robots.js';
import type { InventoryStore } from '../store/store.js';
import type { InventoryRow } from '../store/records.js';
import { parseTarget, type SiteTarget } from '../targets.js';

/**
 * The documentation-site crawler (queue `crawl`). One crawl per site inventory: https first (http
 * only when the host does not speak TLS), robots.txt obeyed (its crawl delay too), sitemaps and
 * sitemap indexes read, links followed inside the scope only, breadth first, with caps on
 * pages, depth, page size and total time and a per-host concurrency shared by every crawl in the
 * process. Pages are stored as they come (a listing sees them at once) as Markdown, under their
 * path relative to the scope.
 */

export interface CrawlLimits {
  readonly maxPages: number;
  readonly maxDepth: number;
  readonly maxPageBytes: number;
  readonly maxDurationMs: number;
  /** Requests in flight per host, across the crawls of this process. */
  readonly hostConcurrency: number;
  /** Bytes of robots.txt read (whole lines); the rest is ignored. */
  readonly maxRobotsBytes: number;
  /** Page URLs taken from sitemaps per crawl; the rest are not queued. */
  readonly maxSitemapUrls: number;
  /** Bytes of one sitemap read; the rest of it is ignored. */
  readonly maxSitemapBytes: number;
}


export interface CrawlDeps {
  readonly store: InventoryStore;
  readonly fetcher: SiteFetcher;
  readonly limits: CrawlLimits;
  readonly logger: Logger;
  readonly notify: (inventoryId: string) => Promise<void>;
  readonly maxAttempts: number;
  readonly hosts: HostLimiter;
  /** Turns a fetched page into title, Markdown and links (a thread pool in workers: see threads/page-pool). */
  readonly parsePage: (body: Buffer, contentType: string, url: URL) => Promise<ParsedPage>;
  /** Whether a parsePage failure means the page was too heavy to convert (then skipped like an oversized one). */
  readonly isTooHeavy: (error: unknown) => boolean;
}

export type CrawlOutcome = 'done' | 'released';

/** The product token robots.txt rules are matched against. */
export const CRAWLER_AGENT = 'pkgscope';

interface Frontier {
  readonly url: URL;
  readonly depth: number;
}

class Stop extends Error {
  constructor(readonly why: 'fenced' | 'shutdown') {
    super(why);
  }
}


/** The facts of a crawl that failed: pages of earlier crawls (if any) still stand, partially. */
function failedFacts(row: InventoryRow, reason: string): InventoryFacts {
  return { ...row.facts, crawlStatus: 'failed', coverage: (row.fileCount ?? 0) > 0 ? 'partial' : 'none', coverageReason: reason };
}

export async function crawlSite(id: string, deps: CrawlDeps, stop?: AbortSignal): Promise<CrawlOutcome> {
  const attempt = await beginAttempt(id, deps);
  if (attempt === null) return 'done';
  const { claimed, log } = attempt;
  const end = (failure: string, reason: string): Promise<CrawlOutcome> => attempt.end('failed', failure, failedFacts(claimed, reason));
  const parsed = parseTarget(claimed.identity);
  if (!parsed.ok || parsed.target.kind !== 'site') return end('invalid_target', 'The stored site target cannot be parsed.');
  try {
    return await new Crawl(parsed.target, attempt, deps, stop).run();
  } catch (error) {
    if (error instanceof Stop) {
      if (error.why === 'shutdown') {
        log.info('crawl handed back (shutdown); pages stored so far are kept');
        return 'released';
      }
      log.warn('another attempt took the crawl over; this one stops');
      return 'done';
    }
    log.error({ err: error }, 'crawl failed unexpectedly');
    return end('internal_error', 'The crawl failed unexpectedly.');
  }
}

class Crawl {
  private readonly collector: EntryCollector;
  private readonly tally: Tally = {
    stored: 0,
    notFound: 0,
    errors: 0,
    oversized: 0,
    skippedTypes: 0,
    robotsSkipped: 0,
    pageCapped: false,
    depthCapped: false,
    timeCapped: false,
    firstError: null,
    sitemapUrlsCapped: false,
    sitemapsTruncated: 0,
    robotsTruncated: false,
    longPaths: 0,
  };
  private readonly seenUrls = new Set<string>();
  private readonly storedPaths = new Set<string>();
  private pending: StoredEntry[] = [];
  private lastFlush = 0;
  private readonly deadline: number;
  private scheme: 'http' | 'https' = 'https';
  private robots: RobotsRules | null = null;
  private delayMs = 0;

  private readonly row: InventoryRow;
  private readonly log: Logger;
  private readonly started: number;

  constructor(
    private readonly target: SiteTarget,
    private readonly attempt: Attempt,
    private readonly deps: CrawlDeps,
    private readonly stop: AbortSignal | undefined,
  ) {
    this.row = attempt.claimed;
    this.log = attempt.log;
    this.started = attempt.started;
    this.collector = new EntryCollector(deps.store, 'repository');
    this.deadline = this.started + deps.limits.maxDurationMs;
  }

  private origin(): string {
    return `${this.scheme}://${this.target.host}`;
  }

  /** Fetches politely; pages (`inScopeOnly`) follow redirects only inside the scope. */
  private fetch(url: URL, inScopeOnly = false): Promise<FetchOutcome> {
    return this.deps.hosts.run(this.target.host, async () => {
      if (this.stop?.aborted) throw new Stop('shutdown');
      const outcome = await this.deps.fetcher.fetch(url, inScopeOnly ? (hop) => this.inScope(hop) !== null : undefined, this.stop);
      // A fetch cut short by the shutdown is not a failure of the page.
      if (this.stop?.aborted) throw new Stop('shutdown');
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      return outcome;
    });
  }

  /** Same host, inside the scope, in the crawl's scheme (an http link on an https site is upgraded). */
  private inScope(url: URL): URL | null {
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.host !== this.target.host) return null;
    const local = new URL(url.href);
    local.protocol = `${this.scheme}:`;
    local.hash = '';
    return pagePath(local, this.target.scope) === null ? null : local;
  }

  private allowedByRobots(url: URL): boolean {
    return this.robots?.isAllowed(url) ?? true;
  }

  async run(): Promise<CrawlOutcome> {
    const robotsUrl = (): URL => new URL('/robots.txt', this.origin());
    let robots = await this.fetch(robotsUrl());
    if (!robots.ok && robots.reason === 'network' && speaksNoTls(robots.code, /:\d+$/.test(this.target.host))) {
      this.scheme = 'http';
      robots = await this.fetch(robotsUrl());
    }
    if (!robots.ok) return this.fail('unreachable', describeFailure(robots));
    const { resource } = robots;
    if (resource.status >= 500) return this.fail('robots_unavailable', `robots.txt answered HTTP ${resource.status}; the site is not crawled until it answers.`);
    if (resource.status >= 200 && resource.status < 300) {
      this.robots = await parseRobots(resource.body, CRAWLER_AGENT, this.deps.limits.maxRobotsBytes);
      // A file cut by the page cap is read in part too (whole lines of what arrived).
      this.tally.robotsTruncated = this.robots.truncated || resource.tooLarge;
      const delay = this.robots.crawlDelay;
      if (typeof delay === 'number' && delay > 0) this.delayMs = Math.min(delay, 10) * 1000;
    }
    // The landing page, with and without a trailing slash (sites serve one or the other; both are path '/').
    const landings = this.target.scope === '' ? ['/'] : [`/${this.target.scope}`, `/${this.target.scope}/`];
    const queue: Frontier[] = landings.map((path) => ({ url: new URL(path, this.origin()), depth: 0 }));
    for (const { url } of queue) this.seenUrls.add(url.href);
    for (const url of await this.sitemapPages()) {
      if (this.seenUrls.has(url.href)) continue;
      this.seenUrls.add(url.href);
      queue.push({ url, depth: 1 });
    }
    await this.walk(queue);
    return this.finish();
  }

  /** In-scope pages the sitemaps list (robots.txt's, else /sitemap.xml), within the sitemap bounds. */
  private async sitemapPages(): Promise<URL[]> {
    const declared = this.robots?.sitemaps ?? [];
    const found = await readSitemaps(
      declared.length > 0 ? declared : [new URL('/sitemap.xml', this.origin()).href],
      async (url) => {
        // A sitemap elsewhere may list this site's pages, but it is fetched under the same rules.
        const outcome = await this.fetch(url);
        return outcome.ok && outcome.resource.status === 200 ? outcome.resource : null;
      },
      (url) => this.inScope(url),
      { maxUrls: this.deps.limits.maxSitemapUrls, maxBytes: this.deps.limits.maxSitemapBytes, deadline: this.deadline },
    );
    this.tally.sitemapUrlsCapped = found.urlsCapped;
    this.tally.sitemapsTruncated = found.truncated;
    return found.pages;
  }

  private async walk(queue: Frontier[]): Promise<void> {
    const { limits } = this.deps;
    const inFlight = new Set<Promise<void>>();
    const concurrency = this.delayMs > 0 ? 1 : limits.hostConcurrency;
    // Set by a visit that must end the crawl (fenced out, shutting down).
    const halt: { error: Error | null } = { error: null };
    while (halt.error === null) {
      // Never more fetches in flight than pages the cap still admits.
      while (queue.length > 0 && inFlight.size < concurrency && this.tally.stored + inFlight.size < limits.maxPages) {
        if (Date.now() >= this.deadline) {
          this.tally.timeCapped = true;
          queue.length = 0;
          break;
        }
        const item = queue.shift();
        if (item === undefined) break;
        const work: Promise<void> = this.visit(item, queue)
          .catch((error: unknown) => {
            halt.error ??= error instanceof Error ? error : new Error(String(error));
          })
          .finally(() => inFlight.delete(work));
        inFlight.add(work);
      }
      if (inFlight.size === 0) break;
      await Promise.race(inFlight);
      // Visits settle on promises alone: without a turn of the event loop between pages, a crawl
      // keeps timers and sockets of every other job of this process waiting.
      await nextTurn();
    }
    await Promise.all(inFlight);
    if (halt.error !== null) throw halt.error;
    if (queue.length > 0 && this.tally.stored >= limits.maxPages) this.tally.pageCapped = true;
    await this.flush(true);
  }

  private async visit(item: Frontier, queue: Frontier[]): Promise<void> {
    if (!this.allowedByRobots(item.url)) {
      this.tally.robotsSkipped++;
      return;
    }
    const outcome = await this.fetch(item.url, true);
    if (!outcome.ok) {
      // A redirect out of the scope is not followed, like an out-of-scope link.
      if (outcome.reason !== 'not_followed') this.error(describeFailure(outcome));
      return;
    }
    const { resource } = outcome;
    if (resource.status === 404 || resource.status === 410) {
      this.tally.notFound++;
      return;
    }
    if (resource.status < 200 || resource.status >= 300) {
      this.error(`${item.url.href} answered HTTP ${resource.status}`);
      return;
    }
    // Redirected pages are kept under where they landed, if that is still inside the scope.
    const final = this.inScope(resource.url);
    const path = final === null ? null : this.storedPath(final, resource);
    // A page stored already (under its canonical or index path) is not stored again; its links are still followed.
    const duplicate = path !== null && this.storedPaths.has(path);
    if (final === null || path === null || !this.allowedByRobots(final)) return;
    if (Buffer.byteLength(path, 'utf8') > MAX_PAGE_PATH_BYTES) {
      this.tally.longPaths++;
      return;
    }
    this.seenUrls.add(final.href);
    if (resource.tooLarge) {
      this.tally.oversized++;
      return;
    }
    if (pageKind(resource.contentType) === null) {
      this.tally.skippedTypes++;
      return;
    }
    if (!duplicate && this.tally.stored >= this.deps.limits.maxPages) {
      this.tally.pageCapped = true;
      return;
    }
    let page: ParsedPage;
    try {
      page = await this.deps.parsePage(resource.body, resource.contentType, resource.url);
    } catch (error) {
      if (!this.deps.isTooHeavy(error)) throw error;
      this.tally.oversized++;
      return;
    }
    // Checked again: another fetch may have stored this path while the page was being converted.
    if (!page.noindex && !this.storedPaths.has(path)) {
      this.storedPaths.add(path);
      this.tally.stored++;
      const bytes = Buffer.from(page.markdown, 'utf8');
      this.pending.push(await this.collector.page(path, page.title, bytes));
      await this.flush(this.tally.stored === 1);
    }
    if (page.nofollow) return;
    for (const link of page.links) {
      const local = this.inScope(link);
      if (local === null || this.seenUrls.has(local.href)) continue;
      if (item.depth + 1 > this.deps.limits.maxDepth) {
        this.tally.depthCapped = true;
        continue;
      }
      this.seenUrls.add(local.href);
      queue.push({ url: local, depth: item.depth + 1 });
    }
  }

  /**
   * Where a page is kept: under its in-scope canonical URL when it names one, so a page reached by
   * several URLs has one entry (a directory index is folded by pagePath).
   */
  private storedPath(
    final: URL,
    resource: { readonly body: Buffer; readonly contentType: string; readonly tooLarge: boolean; readonly url: URL },
  ): string | null {
    const own = pagePath(final, this.target.scope);
    const canonical = resource.tooLarge || pageKind(resource.contentType) !== 'html' ? null : canonicalLink(resource.body, resource.url);
    const local = canonical === null ? null : this.inScope(canonical);
    const named = local === null ? null : pagePath(local, this.target.scope);
    // Every page naming the landing page as its canonical one is a common misconfiguration, not an alias.
    return named === null || (named === '/' && own !== '/') ? own : named;
  }

  private error(message: string): void {
    this.tally.errors++;
    this.tally.firstError ??= message;
  }

  /** Stores pending pages (the first at once, then in batches), so listings see them while the crawl goes on. */
  private async flush(force: boolean): Promise<void> {
    if (this.pending.length === 0) return;
    if (!force && this.pending.length < 25 && Date.now() - this.lastFlush < 1_000) return;
    const batch = this.pending;
    this.pending = [];
    this.lastFlush = Date.now();
    await this.collector.flush();
    if (!(await this.deps.store.upsertEntries(this.row.id, this.row.attempt, batch))) throw new Stop('fenced');
    await this.deps.notify(this.row.id);
  }

  private fail(failure: string, reason: string): Promise<CrawlOutcome> {
    return this.attempt.end('failed', failure, { ...failedFacts(this.row, reason), scheme: this.scheme });
  }

  private coverage(): Pick<InventoryFacts, 'coverage' | 'coverageReason'> {
    return coverageOf(this.tally, this.deps.limits);
  }

  private async finish(): Promise<CrawlOutcome> {
    const coverage = this.coverage();
    // Nothing stored because every fetch failed: a failure (retried later), not an empty site.
    if (this.tally.stored === 0 && this.tally.errors > 0) return this.fail('unreachable', coverage.coverageReason ?? 'No page could be fetched.');
    const facts: InventoryFacts = { ...this.row.facts, scheme: this.scheme, crawlStatus: 'complete', ...coverage, pagesSeen: this.tally.stored };
    // Only a crawl that covered the site may drop pages it no longer found.
    const keep = coverage.coverage === 'complete' ? [...this.storedPaths] : null;
    const done = await this.deps.store.finishCrawl(this.row.id, this.row.attempt, facts, Date.now() - this.started, keep);
    if (!done) throw new Stop('fenced');
    await this.deps.notify(this.row.id);
    this.log.info({ pages: this.tally.stored, coverage: coverage.coverage, ms: Date.now() - this.started }, 'crawl finished');
    return 'done';
  }
}
