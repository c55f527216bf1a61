import { setImmediate as nextTurn } from 'node:timers/promises';
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

/** Where a sitemap's `<loc>` sits: a page of a `<urlset>`, or a nested sitemap of a `<sitemapindex>`. */
export type SitemapLoc = { readonly kind: 'page' | 'sitemap'; readonly loc: string };

/** The element's name without its namespace prefix (`sm:loc` is `loc`). */
function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/**
 * Reads a sitemap or sitemap index as it is written to it (htmlparser2 in XML mode, no tree), so
 * a document of megabytes costs memory for one `<loc>` at a time and can be fed in slices between
 * which the event loop turns. `onLoc` answers false to stop reading.
 */
export class SitemapScanner {
  private readonly open: string[] = [];
  private text: string | null = null;
  private stopped = false;
  private readonly parser: Parser;

  constructor(onLoc: (found: SitemapLoc) => boolean) {
    this.parser = new Parser(
      {
        onopentag: (name) => {
          const local = localName(name);
          this.open.push(local);
          if (local === 'loc') this.text = '';
        },
        ontext: (data) => {
          // A `<loc>` of more than a URL's worth of text is not a URL: it is not kept growing.
          if (this.text !== null && this.text.length < 65_536) this.text += data;
        },
        onclosetag: () => {
          const local = this.open.pop();
          if (local !== 'loc' || this.text === null || this.stopped) return;
          const [item, root] = [this.open.at(-1), this.open.at(-2)];
          const kind = item === 'url' && root === 'urlset' ? 'page' : item === 'sitemap' && root === 'sitemapindex' ? 'sitemap' : null;
          const loc = this.text.trim();
          this.text = null;
          if (kind !== null && loc !== '' && !onLoc({ kind, loc })) this.stopped = true;
        },
      },
      { xmlMode: true, decodeEntities: true },
    );
  }

  /** Whether `onLoc` asked to stop. */
  get done(): boolean {
    return this.stopped;
  }

  write(chunk: string): void {
    if (!this.stopped) this.parser.write(chunk);
  }

  end(): void {
    if (!this.stopped) this.parser.end();
  }
}

/** Page locations and nested sitemaps of a sitemap or sitemap index document (small ones: tests, tools). */
export function parseSitemap(text: string): { pages: string[]; sitemaps: string[] } {
  const pages: string[] = [];
  const sitemaps: string[] = [];
  const scanner = new SitemapScanner(({ kind, loc }) => {
    (kind === 'page' ? pages : sitemaps).push(loc);
    return true;
  });
  scanner.write(text);
  scanner.end();
  return { pages, sitemaps };
}

/** Sitemap text handed to the parser at a time, the event loop turning in between. */
const SITEMAP_SLICE_BYTES = 64 * 1024;
/** Sitemaps read per crawl (indexes included). */
export const MAX_SITEMAPS = 20;

export interface SitemapBounds {
  /** Page URLs kept; reading stops at the first one past it. */
  readonly maxUrls: number;
  /** Bytes of one sitemap read; the rest of it is ignored. */
  readonly maxBytes: number;
  /** Epoch ms after which no further sitemap is fetched. */
  readonly deadline: number;
}

export interface SitemapPages {
  /** In-scope pages, deduplicated, in the order listed. */
  readonly pages: URL[];
  /** More pages were listed than maxUrls. */
  readonly urlsCapped: boolean;
  /** Sitemaps read in part (over maxBytes, or cut by the fetch's own cap). */
  readonly truncated: number;
}

/**
 * Reads sitemaps and sitemap indexes breadth first from `start` (at most MAX_SITEMAPS), keeping
 * the pages `inScope` accepts, up to `maxUrls`: a crawl's queue stays proportional to its page
 * cap however many URLs a site lists. Each sitemap is parsed in slices with the event loop
 * turning between them.
 */
export async function readSitemaps(
  start: readonly string[],
  fetchSitemap: (url: URL) => Promise<{ readonly body: Buffer; readonly tooLarge: boolean } | null>,
  inScope: (url: URL) => URL | null,
  bounds: SitemapBounds,
): Promise<SitemapPages> {
  const toRead = start.slice(0, MAX_SITEMAPS);
  const read = new Set<string>();
  const pages: URL[] = [];
  const listed = new Set<string>();
  // Set from the scanner's callback: an object, so the loop's check reads it again.
  const capped = { urls: false };
  let truncated = 0;
  while (toRead.length > 0 && read.size < MAX_SITEMAPS && Date.now() < bounds.deadline && !capped.urls) {
    const next = toRead.shift();
    if (next === undefined || read.has(next)) continue;
    read.add(next);
    let url: URL;
    try {
      url = new URL(next);
    } catch {
      continue;
    }
    const fetched = await fetchSitemap(url);
    if (fetched === null) continue;
    const { body, tooLarge } = fetched;
    if (tooLarge || body.length > bounds.maxBytes) truncated++;
    const scanner = new SitemapScanner(({ kind, loc }) => {
      if (kind === 'sitemap') {
        if (toRead.length < MAX_SITEMAPS) toRead.push(loc);
        return true;
      }
      let page: URL | null = null;
      try {
        page = inScope(new URL(loc));
      } catch {
        // Not a URL.
      }
      if (page === null || listed.has(page.href)) return true;
      if (pages.length >= bounds.maxUrls) {
        capped.urls = true;
        return false;
      }
      listed.add(page.href);
      pages.push(page);
      return true;
    });
    const decoder = new TextDecoder('utf-8');
    const end = Math.min(body.length, bounds.maxBytes);
    for (let at = 0; at < end && !scanner.done; at += SITEMAP_SLICE_BYTES) {
      scanner.write(decoder.decode(body.subarray(at, Math.min(at + SITEMAP_SLICE_BYTES, end)), { stream: true }));
      // Megabytes are not parsed in one turn of the event loop: other jobs of the process go on.
      await nextTurn();
    }
    scanner.end();
  }
  return { pages, urlsCapped: capped.urls, truncated };
}
