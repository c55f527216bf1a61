import { XMLParser } from 'fast-xml-parser';

// Where a site's pages are: paths under a scope, and the sitemaps that list them.

/** The site's path under its scope: '/' for the landing page, trailing slash and query bytes kept. */
export function pagePath(url: URL, scope: string): string | null {
  const prefix = scope === '' ? '' : `/${scope}`;
  const { pathname } = url;
  if (prefix !== '' && pathname !== prefix && !pathname.startsWith(`${prefix}/`)) return null;
  const rest = pathname.slice(prefix.length).replace(/^\//, '');
  return `${rest === '' ? '/' : rest}${url.search}`;
}

const xml = new XMLParser({ ignoreAttributes: true, isArray: (name) => name === 'url' || name === 'sitemap' });

/** Page locations and nested sitemaps of a sitemap or sitemap index document. */
export function parseSitemap(text: string): { pages: string[]; sitemaps: string[] } {
  let doc: unknown;
  try {
    doc = xml.parse(text);
  } catch {
    return { pages: [], sitemaps: [] };
  }
  const locs = (items: unknown): string[] =>
    Array.isArray(items)
      ? items.flatMap((item) => {
          const loc = (item as { loc?: unknown } | null)?.loc;
          return typeof loc === 'string' ? [loc.trim()] : [];
        })
      : [];
  const root = doc as { urlset?: { url?: unknown }; sitemapindex?: { sitemap?: unknown } };
  return { pages: locs(root.urlset?.url), sitemaps: locs(root.sitemapindex?.sitemap) };
}
