import { isUtf8 } from 'node:buffer';
import render from 'dom-serializer';
import { DomUtils, parseDocument } from 'htmlparser2';
import TurndownService from 'turndown';

/**
 * One fetched documentation page turned into what the inventory keeps: its title, readable
 * Markdown (turndown) and the links it offers (htmlparser2). The main content (`main`,
 * `article`, `[role=main]`, else the body) is converted; scripts, styles and the like are dropped.
 */

export interface ParsedPage {
  readonly title: string | null;
  readonly markdown: string;
  /** Absolute link targets, fragments removed, in document order, deduplicated. */
  readonly links: readonly URL[];
  /** `<meta name="robots" content="nofollow">`: links must not be followed. */
  readonly nofollow: boolean;
  /** `<meta name="robots" content="noindex">`: the page must not be stored. */
  readonly noindex: boolean;
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
turndown.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'canvas', 'form']);

const HTML_TYPES = ['text/html', 'application/xhtml+xml'];
const TEXT_TYPES = ['text/plain', 'text/markdown', 'text/x-markdown'];

export type PageKind = 'html' | 'text' | null;

/** Which pages are kept: HTML, plain text and Markdown; anything else is not documentation text. */
export function pageKind(contentType: string): PageKind {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (HTML_TYPES.includes(type)) return 'html';
  if (TEXT_TYPES.includes(type)) return 'text';
  return null;
}

/** The charset a Content-Type names; pages are decoded as UTF-8 unless it says otherwise. */
function decode(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(contentType)?.[1]?.toLowerCase();
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    try {
      return new TextDecoder(charset).decode(body);
    } catch {
      // An unknown charset: fall through to UTF-8 (with replacement characters).
    }
  }
  return isUtf8(body) ? body.toString('utf8') : new TextDecoder('utf-8').decode(body);
}

function withoutFragment(url: URL): URL {
  const copy = new URL(url.href);
  copy.hash = '';
  return copy;
}

export function parsePage(body: Buffer, contentType: string, url: URL): ParsedPage {
  const text = decode(body, contentType);
  if (pageKind(contentType) !== 'html') {
    const heading = /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? null;
    return { title: heading, markdown: text, links: [], nofollow: false, noindex: false };
  }
  const document = parseDocument(text, { decodeEntities: true });
  const first = (name: string): ReturnType<typeof DomUtils.findOne> =>
    DomUtils.findOne((el) => el.name === name, document.children, true);
  const titleElement = first('title') ?? first('h1');
  const title = titleElement ? DomUtils.textContent(titleElement).replace(/\s+/g, ' ').trim() || null : null;

  const robots = DomUtils.findAll((el) => el.name === 'meta' && el.attribs['name']?.toLowerCase() === 'robots', document.children)
    .map((el) => (el.attribs['content'] ?? '').toLowerCase())
    .join(',');
  const baseHref = first('base')?.attribs['href'];
  let base = url;
  if (baseHref !== undefined) {
    try {
      base = new URL(baseHref, url);
    } catch {
      // An unusable <base> is ignored.
    }
  }
  const links: URL[] = [];
  const seen = new Set<string>();
  for (const anchor of DomUtils.findAll((el) => (el.name === 'a' || el.name === 'area') && typeof el.attribs['href'] === 'string', document.children)) {
    if (/\bnofollow\b/i.test(anchor.attribs['rel'] ?? '')) continue;
    try {
      const link = withoutFragment(new URL(anchor.attribs['href'] ?? '', base));
      if (!seen.has(link.href)) {
        seen.add(link.href);
        links.push(link);
      }
    } catch {
      // Not a URL: skipped.
    }
  }

  const main =
    first('main') ??
    first('article') ??
    DomUtils.findOne((el) => el.attribs['role'] === 'main', document.children, true) ??
    first('body');
  const html = main ? render(main) : text;
  const markdown = turndown.turndown(html).trim();
  return {
    title,
    markdown: markdown === '' ? '' : `${markdown}\n`,
    links,
    nofollow: /\b(nofollow|none)\b/.test(robots),
    noindex: /\b(noindex|none)\b/.test(robots),
  };
}
