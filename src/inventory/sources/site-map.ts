import { XMLParser } from 'fast-xml-parser';
import { Parser } from 'htmlparser2';

// Where a site's pages are: paths under a scope, and the sitemaps that list them.

/** File names a server answers a directory URL with: `docs/index.html` is the page `docs/`. */
const DIRECTORY_INDEX = /(^|\/)index\.html?$/i;

/**
 * The site's path under its scope: '/' for the landing page, trailing slash and query bytes kept;
 * a directory index is folded into its directory's page, so one page has one entry.
 */
export function pagePath(url: URL, scope: string): string | null {
  const prefix = scope === '' ? '' : `/${scope}`;
  const { pathname } = url;
  if (prefix !== '' && pathname !== prefix && !pathname.startsWith(`${prefix}/`)) return null;
  const rest = pathname.slice(prefix.length).replace(/^\//, '').replace(DIRECTORY_INDEX, '$1');
  return `${rest === '' ? '/' : rest}${url.search}`;
}

/**
 * The page's `<link rel="canonical">` (resolved against `<base>` and the page URL), read from the
 * head only; null when it names none or an unusable URL.
 */
export function canonicalLink(body: Buffer, url: URL): URL | null {
  const text = new TextDecoder('utf-8').decode(body);
  const bodyStart = text.search(/<body[\s>]/i);
  const found: { href: string | null; base: string | null } = { href: null, base: null };
  const parser = new Parser({
    onopentag(name, attribs) {
      if (name === 'base') found.base ??= attribs['href'] ?? null;
      const rel = (attribs['rel'] ?? '').toLowerCase().split(/\s+/);
      if (name === 'link' && rel.includes('canonical')) found.href ??= attribs['href'] ?? null;
    },
  });
  parser.end(bodyStart === -1 ? text : text.slice(0, bodyStart));
  if (found.href === null) return null;
  try {
    const resolved = new URL(found.href, found.base === null ? url : new URL(found.base, url));
    resolved.hash = '';
    return resolved;
  } catch {
    return null;
  }
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
