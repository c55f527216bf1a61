import type { ParsedPage } from '../inventory/sources/site-page.js';
import { BudgetExceeded, BudgetPool, workerUrl } from './budget-pool.js';
import type { PageData, PageTask } from './page-worker.js';

export interface PagePoolOptions {
  readonly threads: number;
  /** Time one page's conversion may take: SITE_PAGE_TIME_LIMIT_MS. */
  readonly budgetMs: number;
  readonly maxHeapMb: number;
}

/** A page whose conversion went over its time or heap budget: the crawl skips it like an oversized page. */
export class PageTooHeavy extends Error {
  constructor(cause: BudgetExceeded) {
    super(cause.message, { cause });
    this.name = 'PageTooHeavy';
  }
}

export interface PagePool {
  parse(body: Buffer, contentType: string, url: URL): Promise<ParsedPage>;
  close(): Promise<void>;
}

/**
 * The crawler's HTML-to-Markdown conversion (htmlparser2 + turndown) on a bounded thread pool:
 * a pathological page costs one thread its budget, never the worker's event loop (and with it
 * the queue locks of every job the process holds).
 */
export function createPagePool(options: PagePoolOptions): PagePool {
  const pool = new BudgetPool<PageTask, PageData>({
    worker: workerUrl('page-worker'),
    name: 'page',
    maxThreads: options.threads,
    // Crawls wait for a thread rather than fail: their own deadline bounds the wait.
    maxQueue: 10_000,
    budgetMs: options.budgetMs,
    maxHeapMb: options.maxHeapMb,
  });
  return {
    async parse(body, contentType, url) {
      try {
        const data = await pool.run({ body: new Uint8Array(body), contentType, url: url.href }, {});
        return { ...data, links: data.links.map((href) => new URL(href)) };
      } catch (error) {
        if (error instanceof BudgetExceeded) throw new PageTooHeavy(error);
        throw error;
      }
    },
    close: () => pool.close(),
  };
}
