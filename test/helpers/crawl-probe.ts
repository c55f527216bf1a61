import { expect } from 'vitest';
import type { ListResponseType } from '../../src/routes/inventory/schemas.js';
import { inventoryChannel, waitForInventory } from '../../src/inventory/prepare/waiter.js';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import { DocsSite, type SiteResource } from './docs-site.js';
import { startJobsHarness, submitJob, type JobsHarness } from './jobs.js';
import { pollUntil } from './poll.js';
import { LatencyProbe, responsiveBound } from './responsiveness.js';

/**
 * Crawls of hostile sites with the API and the workers in this process, so a crawl that holds
 * the event loop delays `/healthz` and a small request exactly as it delays every other job of a
 * worker. Each measured crawl is compared with a control crawl of a harmless site of the same
 * shape: on a loaded machine any crawl slows the probes somewhat.
 */

export interface CrawlRun {
  readonly target: string;
  readonly site: DocsSite;
  /** Slowest probe answer while the crawl ran, and before it (idle). */
  readonly slowest: number;
  readonly baseline: number;
  /** Largest growth of this process's resident memory while the crawl ran. */
  readonly rssGrowth: number;
  /** A tiny lockfile job submitted while the crawl ran, as it ended. */
  readonly job: JobSnapshot;
}

/** A site's resources, or a function making them from its origin (for bodies served as bytes). */
export type SiteResources = Record<string, SiteResource> | ((origin: string) => Record<string, SiteResource>);

export interface CrawlProbe {
  readonly h: JobsHarness;
  list(body: Record<string, unknown>): Promise<ListResponseType>;
  /** Crawls a fresh site serving `resources` (its landing page `/docs`) while probing. */
  crawl(resources: SiteResources): Promise<CrawlRun>;
  /**
   * The hostile crawl, whose probes must answer within responsiveBound() of the slower of its
   * idle baseline and the control crawl. On a machine whose load jumps meanwhile, the pair is measured
   * again (up to three times): a crawl that holds the event loop for seconds fails every time.
   */
  hostileAgainstControl(hostile: SiteResources, control: SiteResources): Promise<CrawlRun>;
  close(): Promise<void>;
}

export async function startCrawlProbe(env: Record<string, string>): Promise<CrawlProbe> {
  const h = await startJobsHarness({ SITE_ALLOW_PRIVATE_ADDRESSES: 'true', SITE_FETCH_TIMEOUT_MS: '5000', SITE_HOST_CONCURRENCY: '4', ...env });
  await h.startWorkers();
  const base = await h.listen();
  const token = await h.token('crawl-probe');
  const sites: DocsSite[] = [];
  const get = (path: string): Promise<Response> => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const list = async (body: Record<string, unknown>): Promise<ListResponseType> => {
    const res = await fetch(`${base}/v1/list`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return JSON.parse(text) as ListResponseType;
  };
  const tinyJob = async (): Promise<JobSnapshot> => {
    const job = await submitJob(h, token);
    let last: JobSnapshot = job;
    return pollUntil(
      `job ${job.id} finished`,
      async () => {
        last = (await (await get(`/v1/experimental/lockfile-jobs/${job.id}`)).json()) as JobSnapshot;
        return last.state === 'succeeded' || last.state === 'failed' ? last : undefined;
      },
      { withinMs: 60_000, everyMs: 25, describe: () => `${last.state}/${last.phase}` },
    );
  };
  const crawled = async (target: string): Promise<void> => {
    const row = await h.services.inventories.byIdentity(target);
    if (!row) throw new Error(`no inventory for ${target}`);
    const waited = await waitForInventory(
      h.services.hub,
      inventoryChannel(h.config.redisPrefix, row.id),
      async () => (await h.services.inventories.get(row.id)) ?? row,
      (r) => (r.state === 'ready' || r.state === 'failed') && r.facts.crawlStatus !== 'running',
      240_000,
    );
    expect(waited.outcome).toBe('completed');
  };
  const crawl = async (resources: SiteResources): Promise<CrawlRun> => {
    const site = await DocsSite.start();
    sites.push(site);
    for (const [path, resource] of Object.entries(typeof resources === 'function' ? resources(site.origin) : resources)) site.resources.set(path, resource);
    const target = `site:${site.host}/docs`;
    const warm = await tinyJob();
    let peak = 0;
    const probe = new LatencyProbe([
      async () => expect((await fetch(`${base}/healthz`)).status).toBe(200),
      async () => expect((await get(`/v1/experimental/lockfile-jobs/${warm.id}`)).status).toBe(200),
      () => Promise.resolve((peak = Math.max(peak, process.memoryUsage().rss))),
    ]);
    const baseline = await probe.baseline();
    const before = process.memoryUsage().rss;
    probe.start();
    let job: JobSnapshot;
    try {
      await list({ target });
      await site.requestedOnce('/robots.txt');
      // An unrelated small job of the same process, submitted while the crawl runs.
      [job] = await Promise.all([tinyJob(), crawled(target)]);
    } finally {
      await probe.stop().catch(() => undefined);
    }
    const { slowest } = await probe.stop();
    return { target, site, slowest, baseline, rssGrowth: peak - before, job };
  };
  return {
    h,
    list,
    crawl,
    hostileAgainstControl: async (hostile, control) => {
      const misses: string[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const reference = await crawl(control);
        const run = await crawl(hostile);
        expect(run.job.state).toBe('succeeded');
        const budget = responsiveBound(Math.max(run.baseline, reference.slowest));
        if (run.slowest < budget) return run;
        misses.push(`${Math.round(run.slowest)} ms against ${Math.round(budget)} ms`);
      }
      throw new Error(`the hostile crawl held the probes back every time: ${misses.join('; ')}`);
    },
    close: async () => {
      await h.close();
      for (const site of sites) await site.close();
    },
  };
}
