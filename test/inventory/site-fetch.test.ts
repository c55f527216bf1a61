import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagePath, parseSitemap } from '../../src/inventory/sources/site-map.js';
import { addressPolicy, isPublicAddress, SiteFetcher, type SiteFetcherOptions } from '../../src/inventory/sources/site-fetch.js';
import { pageKind, parsePage } from '../../src/inventory/sources/site-page.js';
import { DocsSite } from '../helpers/docs-site.js';

describe('address policy', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
    expect(addressPolicy(false)(address)).toBe(expected);
    expect(addressPolicy(true)(address)).toBe(true);
  });
});

describe('fetching', () => {
  let site: DocsSite;
  const options = (allowAddress: (a: string) => boolean): SiteFetcherOptions => ({ allowAddress, timeoutMs: 5_000, maxBytes: 1024, maxRedirects: 5, userAgent: 'pkgscope-test' });
  let onlyLoopbackOne: SiteFetcher;
  let production: SiteFetcher;

  beforeAll(async () => {
    site = await DocsSite.start({
      '/ok': { body: '<p>ok</p>' },
      '/to-other-loopback': { location: 'http://127.0.0.2:{port}/ok' },
      '/to-ipv6-loopback': { location: 'http://[::1]:{port}/ok' },
      '/to-metadata': { location: 'http://169.254.169.254/latest/meta-data/' },
      '/to-file': { location: 'file:///etc/passwd' },
      '/hop': { location: '/ok' },
      '/loop-a': { location: '/loop-b' },
      '/loop-b': { location: '/loop-a' },
      '/large': { body: 'y'.repeat(5000) },
    });
    // Locations name the port, which the resources cannot know in advance.
    for (const [path, resource] of site.resources) {
      if (resource.location?.includes('{port}')) site.resources.set(path, { location: resource.location.replace('{port}', String(site.port)) });
    }
    onlyLoopbackOne = new SiteFetcher(options((a) => a === '127.0.0.1'));
    production = new SiteFetcher(options(addressPolicy(false)));
  });
  afterAll(async () => {
    await onlyLoopbackOne.close();
    await production.close();
    await site.close();
  });

  it('follows a redirect and reports where it landed', async () => {
    const outcome = await onlyLoopbackOne.fetch(new URL(`${site.origin}/hop`));
    expect(outcome).toMatchObject({ ok: true, resource: { status: 200, url: new URL(`${site.origin}/ok`) } });
  });

  it('checks every redirect hop against the address policy, literal or resolved', async () => {
    for (const path of ['/to-other-loopback', '/to-ipv6-loopback', '/to-metadata']) {
      const outcome = await onlyLoopbackOne.fetch(new URL(`${site.origin}${path}`));
      expect(outcome, path).toMatchObject({ ok: false, reason: 'blocked' });
    }
    expect(await onlyLoopbackOne.fetch(new URL(`${site.origin}/to-file`))).toMatchObject({ ok: false, reason: 'blocked' });
    const before = site.requests.length;
    // Production policy: the loopback site itself is refused, by literal and after DNS resolution.
    expect(await production.fetch(new URL(`${site.origin}/ok`))).toMatchObject({ ok: false, reason: 'blocked' });
    expect(await production.fetch(new URL(`http://localhost:${site.port}/ok`))).toMatchObject({ ok: false, reason: 'blocked' });
    expect(site.requests.length).toBe(before);
  });

  it('detects redirect loops, refuses hops `follow` rejects and caps the body', async () => {
    expect(await onlyLoopbackOne.fetch(new URL(`${site.origin}/loop-a`))).toMatchObject({ ok: false, reason: 'redirect_loop' });
    expect(await onlyLoopbackOne.fetch(new URL(`${site.origin}/hop`), (url) => url.pathname !== '/ok')).toMatchObject({ ok: false, reason: 'not_followed' });
    const large = await onlyLoopbackOne.fetch(new URL(`${site.origin}/large`));
    expect(large).toMatchObject({ ok: true, resource: { tooLarge: true } });
  });
});

describe('pages, sitemaps and paths', () => {
  it('turns HTML into Markdown with title and links, honouring robots meta and nofollow links', () => {
    const page = parsePage(
      Buffer.from(
        '<html><head><title> The  Title </title><base href="/docs/"><meta name="robots" content="NOFOLLOW"></head>' +
          '<body><nav>menu</nav><main><h2>Part</h2><p>Some <b>bold</b> text</p><pre><code>x = 1</code></pre>' +
          '<a href="a#frag">a</a><a href="a">again</a><a rel="nofollow" href="b">b</a><a href="http://[bad">bad</a></main></body></html>',
      ),
      'text/html; charset=utf-8',
      new URL('http://site.test/docs/x/y'),
    );
    expect(page.title).toBe('The Title');
    expect(page.markdown).toContain('## Part');
    expect(page.markdown).toContain('**bold**');
    expect(page.markdown).toContain('```\nx = 1\n```');
    expect(page.markdown).not.toContain('menu');
    expect(page.links.map(String)).toEqual(['http://site.test/docs/a']);
    expect(page).toMatchObject({ nofollow: true, noindex: false });
    const latin1 = parsePage(Buffer.from([0x3c, 0x70, 0x3e, 0xe9, 0x3c, 0x2f, 0x70, 0x3e]), 'text/html; charset=iso-8859-1', new URL('http://site.test/'));
    expect(latin1.markdown).toBe('é\n');
    expect(pageKind('application/pdf')).toBeNull();
    expect(pageKind('text/markdown; charset=utf-8')).toBe('text');
  });

  it('reads sitemaps and sitemap indexes, ignoring garbage', () => {
    expect(parseSitemap('<urlset><url><loc> http://a.test/x </loc></url><url><loc>http://a.test/y</loc></url></urlset>')).toEqual({
      pages: ['http://a.test/x', 'http://a.test/y'],
      sitemaps: [],
    });
    expect(parseSitemap('<sitemapindex><sitemap><loc>http://a.test/s.xml</loc></sitemap></sitemapindex>')).toEqual({ pages: [], sitemaps: ['http://a.test/s.xml'] });
    expect(parseSitemap('not xml <<<')).toEqual({ pages: [], sitemaps: [] });
  });

  it('names pages relative to the scope, keeping trailing slashes, query and percent bytes', () => {
    const at = (href: string, scope: string): string | null => pagePath(new URL(href), scope);
    expect(at('http://h.test/docs', 'docs')).toBe('/');
    expect(at('http://h.test/docs/', 'docs')).toBe('/');
    expect(at('http://h.test/docs/guide/', 'docs')).toBe('guide/');
    expect(at('http://h.test/docs/a%20b?x=1&y=%2F', 'docs')).toBe('a%20b?x=1&y=%2F');
    expect(at('http://h.test/docsearch', 'docs')).toBeNull();
    expect(at('http://h.test/', '')).toBe('/');
    expect(at('http://h.test/a//b', '')).toBe('a//b');
    expect(at('http://h.test/v2/api/x', 'v2/api')).toBe('x');
  });
});
