import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inventories } from '../../src/db/schema/index.js';
import { inventoryChannel, waitForInventory } from '../../src/inventory/prepare/waiter.js';
import type { GrepResponseType } from '../../src/routes/inventory/grep-schemas.js';
import type { ReadResponseType } from '../../src/routes/inventory/schemas.js';
import type { InventoryRow } from '../../src/inventory/store/records.js';
import type { RunningWorkers } from '../../src/processes/workers.js';
import { DocsSite, htmlPage, type SiteResource } from '../helpers/docs-site.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';

const sitemap = (tag: 'urlset' | 'sitemapindex', locs: readonly string[]): SiteResource => ({
  type: 'application/xml',
  body: `<?xml version="1.0" encoding="UTF-8"?><${tag} xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((loc) => (tag === 'urlset' ? `<url><loc>${loc}</loc></url>` : `<sitemap><loc>${loc}</loc></sitemap>`))
    .join('')}</${tag}>`,
});

const MANY = 30;

function resources(): Record<string, SiteResource> {
  const r: Record<string, SiteResource> = {
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /docs/private\n\nSitemap: {origin}/sitemap-index.xml\n' },
    '/sitemap-index.xml': sitemap('sitemapindex', ['{origin}/sitemaps/docs.xml', '{origin}/sitemaps/blog.xml']),
    '/sitemaps/docs.xml': sitemap('urlset', ['{origin}/docs/orphan', '{origin}/docs/guide/intro', '{origin}/docs/private/listed']),
    '/sitemaps/blog.xml': sitemap('urlset', ['{origin}/blog/post']),
    '/docs': { status: 301, location: '/docs/' },
    '/docs/': htmlPage('Docs home', 'Welcome to the docs', [
      'guide/',
      'guide/intro',
      'api?version=2',
      '../blog/post',
      '/docs/private/secret',
      'loop-a',
      'escape',
      'image.png',
      'notes.txt',
      'noindex',
      '#section',
      'mailto:someone@example.test',
    ]),
    '/docs/guide/': htmlPage('Guide', 'The guide', ['intro']),
    '/docs/guide/intro': htmlPage('Intro', 'Introduction text &amp; more'),
    '/docs/api?version=2': htmlPage('API v2', 'Second API'),
    '/docs/orphan': htmlPage('Orphan', 'Only the sitemap knows me'),
    '/docs/private/secret': htmlPage('Secret', 'robots.txt forbids this'),
    '/docs/private/listed': htmlPage('Listed secret', 'robots.txt forbids this too'),
    '/docs/loop-a': { location: '/docs/loop-b' },
    '/docs/loop-b': { location: '/docs/loop-a' },
    '/docs/escape': { location: 'http://169.254.169.254/latest/meta-data/' },
    '/docs/image.png': { type: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
    '/docs/notes.txt': { type: 'text/plain; charset=utf-8', body: '# Notes\nplain text notes\n' },
    '/docs/noindex': {
      body: '<html><head><title>Hidden</title><meta name="robots" content="noindex"></head><body><a href="hidden-child">child</a></body></html>',
    },
    '/docs/hidden-child': htmlPage('Hidden child', 'Reached through a noindex page'),
    '/blog/post': htmlPage('Blog', 'Out of scope'),
    '/clean': htmlPage('Clean', 'Clean home', ['clean/a', 'clean/b']),
    '/clean/a': htmlPage('A', 'Page a'),
    '/clean/b': htmlPage('B', 'Page b'),
    '/big': htmlPage('Big', 'Big home', ['big/huge', 'big/small']),
    '/big/huge': { body: `<html><body><p>${'x'.repeat(2 * 1024 * 1024)}</p></body></html>` },
    '/big/small': htmlPage('Small', 'Small page'),
    '/chain': htmlPage('Chain 0', 'start', ['chain/1']),
    '/many': htmlPage('Many', 'Many pages', Array.from({ length: MANY }, (_, i) => `many/p${String(i).padStart(2, '0')}`)),
    '/blocked': htmlPage('Blocked', 'never fetched'),
    '/slow': htmlPage('Slow', 'Slow home', ['slow/1', 'slow/2']),
    '/slow/1': htmlPage('Slow 1', 'one'),
    '/slow/2': htmlPage('Slow 2', 'two'),
    // A directory that is also a page, a page with two URLs, a canonical alias, a `//` path.
    '/folded': htmlPage('Folded', 'Folded home', [
      'folded/guide',
      'folded/guide/intro',
      'folded/docs/',
      'folded/docs/index.html',
      'folded/alias',
      'folded/canon',
      '{origin}/folded//twice/',
      '{origin}/folded//twice/x',
    ]),
    '/folded/guide': htmlPage('Guide', 'Guide page'),
    '/folded/guide/intro': htmlPage('Intro', 'Intro page'),
    '/folded/docs/': htmlPage('Docs index', 'One page, two URLs'),
    '/folded/docs/index.html': htmlPage('Docs index', 'One page, two URLs'),
    '/folded/alias': {
      body: '<html><head><title>Canon</title><link rel="canonical" href="/folded/canon"></head><body><main><p>Canonical text</p></main></body></html>',
    },
    '/folded/canon': htmlPage('Canon', 'Canonical text', ['/folded/deep']),
    // Names the landing page as canonical (a common misconfiguration): kept under its own path.
    '/folded/deep': {
      body: '<html><head><title>Deep</title><link rel="canonical" href="/folded"></head><body><main><p>Deep text</p></main></body></html>',
    },
    '/folded//twice/': htmlPage('Twice index', 'A page at a // URL'),
    '/folded//twice/x': htmlPage('Twice', 'Behind a double slash'),
  };
  for (let i = 1; i <= 6; i++) r[`/chain/${i}`] = htmlPage(`Chain ${i}`, `link ${i}`, [`/chain/${i + 1}`]);
  for (let i = 0; i < MANY; i++) r[`/many/p${String(i).padStart(2, '0')}`] = htmlPage(`Page ${i}`, `Text ${i}`);
  return r;
}

let h: JobsHarness;
let site: DocsSite;
let token: string;
const { list, listOk, read } = inventoryClient(
  () => h.app,
  () => token,
);

beforeAll(async () => {
  site = await DocsSite.start(resources());
  h = await startJobsHarness({
    SITE_ALLOW_PRIVATE_ADDRESSES: 'true',
    SITE_MAX_PAGES: '12',
    SITE_MAX_DEPTH: '3',
    SITE_MAX_PAGE_BYTES: String(1024 * 1024),
    SITE_FETCH_TIMEOUT_MS: '5000',
  });
  token = await h.token('site-lister');
});
afterAll(async () => {
  await h.close();
  await site.close();
});




/** Waits (by the inventory's change events) until its crawl has ended. */
async function crawled(target: string): Promise<InventoryRow> {
  const row = await h.services.inventories.byIdentity(target);
  if (!row) throw new Error(`no inventory for ${target}`);
  const waited = await waitForInventory(
    h.services.hub,
    inventoryChannel(h.config.redisPrefix, row.id),
    async () => (await h.services.inventories.get(row.id)) ?? row,
    (r) => r.state === 'ready' || r.state === 'failed',
    30_000,
  );
  expect(waited.outcome).toBe('completed');
  return waited.value;
}

async function allPaths(target: string, limit = 500): Promise<string[]> {
  const paths: string[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 200; guard++) {
    const page = await listOk({ target, recursive: true, limit, ...(after ? { after } : {}) });
    paths.push(...page.entries.map((e) => e.path));
    if (!page.has_more) return paths;
    after = page.next_cursor!;
  }
  throw new Error('too many pages');
}

describe('site targets', () => {
  let workers: RunningWorkers | null = null;
  const docs = (): string => `site:${site.host}/docs`;

  afterAll(async () => {
    await workers?.close();
  });

  it('admits an empty site: nothing listed, nothing readable, one crawl enqueued', async () => {
    const first = await listOk({ target: docs() });
    expect(first).toMatchObject({
      inventory_kind: 'site',
      requested_target: docs(),
      canonical_target: null,
      entries: [],
      has_more: false,
      indexed_version: null,
      resolution: null,
      target_resolution: null,
      code_index_state: null,
      indexing_status: null,
      available_versions: null,
      inventory_state: 'empty',
      crawl_status: 'idle',
      coverage_state: 'none',
      preparation: { selected: 1, enqueued: 1, active_jobs: [{ mode: 'initial', state: 'waiting' }], awaited: [] },
    });
    expect((await listOk({ target: docs() })).preparation?.enqueued).toBe(0);
    const notYet = await read(docs(), '/');
    expect(notYet.statusCode).toBe(409);
    expect(notYet.json()).toMatchObject({ code: 'TARGET_NOT_READY' });
    const filtered = await list({ target: docs(), languages: ['markdown'] });
    expect(filtered.statusCode).toBe(400);
  });

  it('waits for an empty site’s first pages, then lists while the crawl goes on', async () => {
    workers = await h.startWorkers();
    const page = await listOk({ target: docs(), wait_timeout_ms: 20_000 });
    expect(page.inventory_state).toBe('available');
    expect(page.entries.length).toBeGreaterThan(0);
    expect(page.canonical_target).toBe(docs());
    expect(page.preparation?.awaited).toEqual([{ mode: 'initial', outcome: 'completed' }]);
    expect(['running', 'complete']).toContain(page.crawl_status);
  });

  it('crawls within robots.txt, the sitemap index and the scope, storing readable Markdown', async () => {
    const row = await crawled(docs());
    expect(row.facts).toMatchObject({ scheme: 'http', crawlStatus: 'complete' });
    const paths = await allPaths(docs());
    expect(paths.sort()).toEqual(['/', 'api?version=2', 'guide/', 'guide/intro', 'hidden-child', 'notes.txt', 'orphan'].sort());
    const requested = site.requested();
    expect(requested).not.toContain('/docs/private/secret');
    expect(requested).not.toContain('/docs/private/listed');
    expect(requested).not.toContain('/blog/post');
    expect(requested).toContain('/sitemaps/blog.xml');
    expect(site.requests.every((r) => r.userAgent.startsWith('pkgscope/'))).toBe(true);

    const page = await listOk({ target: docs() });
    // The redirect loop is the one failure: covered, but not completely.
    expect(page).toMatchObject({ crawl_status: 'complete', coverage_state: 'partial', inventory_state: 'available' });
    expect(page.coverage_reason).toMatch(/redirects in a loop/);
    expect(page.entries.map((e) => `${e.kind}:${e.path}`)).toEqual([
      'page:/',
      'page:api?version=2',
      'directory:guide',
      'page:hidden-child',
      'page:notes.txt',
      'page:orphan',
    ]);
    const home = page.entries[0]!;
    expect(home).toMatchObject({ title: 'Docs home', read: { target: docs(), path: '/' }, browse: null, file_type: 'md', language: 'markdown', intent: null });
    const guide = await listOk({ target: docs(), paths: ['/guide'] });
    expect(guide.entries.map((e) => e.path)).toEqual(['guide/', 'guide/intro']);
    expect(guide.entries[0]?.read).toEqual({ target: docs(), path: 'guide/' });

    const landing = (await read(docs(), '/')).json<ReadResponseType>();
    expect(landing).toMatchObject({ inventory_kind: 'site', kind: 'page', path: '/', title: 'Docs home', encoding: 'utf-8', canonical_target: docs() });
    expect(landing.content).toMatch(/^# Docs home/m);
    expect(landing.content).toContain('Welcome to the docs');
    expect(landing.content).not.toContain('tracking');
    expect(landing.content).not.toContain('color:red');
    const query = (await read(docs(), 'api?version=2')).json<ReadResponseType>();
    expect(query).toMatchObject({ path: 'api?version=2', title: 'API v2' });
    const intro = (await read(docs(), 'guide/intro')).json<ReadResponseType>();
    expect(intro.content).toContain('Introduction text & more');
    const notes = (await read(docs(), 'notes.txt')).json<ReadResponseType>();
    expect(notes.content).toBe('# Notes\nplain text notes\n');
    expect((await read(docs(), 'guide')).statusCode).toBe(404);

    // Grep reads the stored page text (Markdown), its matches read as the pages they are in.
    const grep = await h.app.inject({ method: 'POST', url: '/v1/grep', headers: { authorization: `Bearer ${token}` }, payload: { target: docs(), pattern: 'introduction TEXT', case_sensitive: false } });
    expect(grep.statusCode, grep.body).toBe(200);
    const found = grep.json<GrepResponseType>();
    expect(found).toMatchObject({ inventory_kind: 'site', index_narrowed: true });
    expect(found.matches.map((m) => [m.path, m.read])).toEqual([['guide/intro', { target: docs(), path: 'guide/intro' }]]);
  });

  it('lists a directory that is also a page as both, folds directory indexes and canonical aliases, and browses `//` paths', async () => {
    const target = `site:${site.host}/folded`;
    await listOk({ target, wait_timeout_ms: 20_000 });
    await crawled(target);
    const root = await listOk({ target });
    expect(root.entries.map((e) => `${e.kind}:${e.path}`)).toEqual(['page:/', 'directory:/twice', 'page:canon', 'page:deep', 'directory:docs', 'page:guide', 'directory:guide']);
    expect(root.entries.find((e) => e.kind === 'page' && e.path === 'guide')?.read).toEqual({ target, path: 'guide' });
    // Every directory's own browse action lists exactly its children.
    const children: Record<string, string[]> = { '/twice': ['/twice/', '/twice/x'], docs: ['docs/'], guide: ['guide/intro'] };
    for (const entry of root.entries.filter((e) => e.kind === 'directory')) {
      expect(entry.browse?.target).toBe(target);
      const page = await listOk({ target: entry.browse!.target, paths: entry.browse!.paths! });
      expect(page.entries.map((e) => e.path), entry.path).toEqual(children[entry.path]);
    }
    // Each page once: the index page under its directory, the alias under its canonical path.
    expect((await allPaths(target)).sort()).toEqual(['/', '/twice/', '/twice/x', 'canon', 'deep', 'docs/', 'guide', 'guide/intro'].sort());
    expect((await read(target, '/twice/')).json<ReadResponseType>().content).toContain('A page at a // URL');
    expect((await read(target, 'docs/')).json<ReadResponseType>().content).toContain('One page, two URLs');
  });

  it('reports complete coverage, but never from an empty page', async () => {
    const target = `site:${site.host}/clean`;
    await listOk({ target, wait_timeout_ms: 20_000 });
    await crawled(target);
    const page = await listOk({ target, recursive: true });
    expect(page).toMatchObject({ coverage_state: 'complete', crawl_status: 'complete' });
    expect(page.entries.map((e) => e.path)).toEqual(['/', 'a', 'b']);
    const empty = await listOk({ target, paths: ['nothing/**'] });
    expect(empty.entries).toEqual([]);
    expect(empty.coverage_state).toBe('partial');
    expect(empty.coverage_reason).toMatch(/does not prove/);
  });

  it('skips a page over the size cap and says the coverage is capped', async () => {
    const target = `site:${site.host}/big`;
    await listOk({ target, wait_timeout_ms: 20_000 });
    await crawled(target);
    const page = await listOk({ target, recursive: true });
    expect(page.entries.map((e) => e.path)).toEqual(['/', 'small']);
    expect(page).toMatchObject({ coverage_state: 'capped' });
    expect(page.coverage_reason).toMatch(/over the 1048576-byte page cap/);
  });

  it('stops at the depth cap', async () => {
    const target = `site:${site.host}/chain`;
    await listOk({ target, wait_timeout_ms: 20_000 });
    await crawled(target);
    expect(await allPaths(target)).toEqual(['/', '1', '2', '3']);
    const page = await listOk({ target });
    expect(page.coverage_state).toBe('capped');
    expect(page.coverage_reason).toMatch(/deeper than 3/);
  });

  it('stops at the page cap and pages through what it stored', async () => {
    const target = `site:${site.host}/many`;
    await listOk({ target, wait_timeout_ms: 20_000 });
    await crawled(target);
    const all = await allPaths(target);
    expect(all).toHaveLength(12);
    expect(all[0]).toBe('/');
    const page = await listOk({ target });
    expect(page.coverage_state).toBe('capped');
    expect(page.coverage_reason).toMatch(/page cap of 12/);
    for (const limit of [1, 2, 3, 5]) expect(await allPaths(target, limit)).toEqual(all);
    const cursorPage = await listOk({ target, recursive: true, limit: 4 });
    const refused = await list({ target, recursive: true, limit: 5, after: cursorPage.next_cursor });
    expect(refused.statusCode).toBe(400);
  });

  it('serves stored pages while a refresh crawl runs, then drops pages the site removed', async () => {
    const target = `site:${site.host}/clean`;
    site.resources.set('/clean', htmlPage('Clean', 'Clean home, new', ['clean/a', 'clean/c']));
    site.resources.delete('/clean/b');
    site.resources.set('/clean/c', htmlPage('C', 'Page c'));
    await h.database.db
      .update(inventories)
      .set({ finishedAt: sql`now() - interval '2 days'` })
      .where(eq(inventories.identity, target));
    const during = await listOk({ target, recursive: true });
    expect(during.preparation?.enqueued).toBe(1);
    expect(during.entries.map((e) => e.path)).toEqual(['/', 'a', 'b']);
    expect(during.coverage_reason).toMatch(/refresh crawl/);
    await crawled(target);
    expect(await allPaths(target)).toEqual(['/', 'a', 'c']);
  });

  it('hands a crawl back at shutdown, keeping its stored pages; another worker finishes it', async () => {
    await workers?.close();
    const release = site.hold('/slow/');
    workers = await h.startWorkers({ shutdownGraceMs: 100 });
    const target = `site:${site.host}/slow`;
    const first = await listOk({ target, wait_timeout_ms: 20_000 });
    expect(first.entries.map((e) => e.path)).toEqual(['/']);
    expect(first.crawl_status).toBe('running');
    await site.requestedOnce('/slow/1');
    await workers.close();
    workers = null;
    release();
    const handedBack = await h.services.inventories.byIdentity(target);
    expect(handedBack).toMatchObject({ state: 'preparing', fileCount: 1 });
    workers = await h.startWorkers();
    const done = await crawled(target);
    expect(done.state).toBe('ready');
    expect(await allPaths(target)).toEqual(['/', '1', '2']);
  });

  it('refuses a site on a private address when they are not allowed', async () => {
    await workers?.close();
    workers = await h.startWorkers({ siteAllowPrivateAddresses: false });
    const target = `site:${site.host}/blocked`;
    const page = await listOk({ target, wait_timeout_ms: 20_000 });
    expect(page).toMatchObject({ inventory_state: 'empty', crawl_status: 'failed', coverage_state: 'none', entries: [] });
    expect(page.preparation?.awaited).toEqual([{ mode: 'initial', outcome: 'discarded' }]);
    expect(page.coverage_reason).toMatch(/non-public address/);
    expect(site.requested()).not.toContain('/blocked');
  });

  it('re-enqueues a crawl whose queue entry Redis lost, on the crawl queue', async () => {
    await workers?.close();
    workers = null;
    const target = `site:${site.host}/docs/guide`;
    const admitted = await listOk({ target });
    expect(admitted.preparation?.enqueued).toBe(1);
    const queue = h.services.preparationQueues.crawl;
    expect(await queue.getJobCountByTypes('waiting')).toBe(1);
    await queue.obliterate({ force: true });
    expect(await queue.getJobCountByTypes('waiting')).toBe(0);
    workers = await h.startWorkers();
    const page = await listOk({ target, wait_timeout_ms: 20_000 });
    expect(page.inventory_state).toBe('available');
    expect(page.entries.map((e) => e.path)).toContain('/');
  });
});
