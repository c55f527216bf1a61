import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * robots.txt for the crawler: the group for our product token (else `*`), its allow and disallow
 * rules, crawl delay and sitemaps, read the way robots-parser reads them (line syntax, version
 * stripped from user agents, percent-encoding normalised, longest rule wins, allow wins a tie).
 *
 * Why not robots-parser itself: its matcher (Google's algorithm) keeps every prefix length the
 * pattern can match, O(pattern × path) per rule and URL, so `Disallow: /` followed by megabytes of
 * `*` cost minutes of CPU on the worker's event loop. Here a pattern is compiled once into its
 * literal pieces between `*`s and matched leftmost-first (`indexOf`), linear in the path and the
 * pattern; consecutive `*`s collapse. Only the first `maxBytes` of the file are read (Google
 * reads 500 KiB), and of each line its first 16,664 characters, as Google's parser does.
 */

export interface RobotsRules {
  /** Whether the path and query of a URL on this site may be fetched. */
  isAllowed(url: URL): boolean;
  /** Crawl delay in seconds for our group, if it names one. */
  readonly crawlDelay: number | undefined;
  readonly sitemaps: readonly string[];
  /** The file was longer than the bytes read. */
  readonly truncated: boolean;
}

interface Rule {
  readonly allow: boolean;
  /** Length of the normalised pattern: the longest matching rule wins. */
  readonly length: number;
  /** The pattern's literal pieces between `*`s (at least one, possibly empty). */
  readonly pieces: readonly string[];
  /** The pattern ended in `$`: the path must end where the pattern does. */
  readonly anchored: boolean;
  readonly minLength: number;
}

interface Group {
  readonly rules: Rule[];
  crawlDelay?: number;
}

function toUpperEscapes(path: string): string {
  return path.replace(/%[0-9a-fA-F]{2}/g, (escape) => escape.toUpperCase());
}

/** Percent-encodes what a URL would (keeping existing escapes) and upper-cases escapes. */
function normalisePattern(pattern: string): string {
  try {
    return toUpperEscapes(encodeURI(pattern).replace(/%25/g, '%'));
  } catch {
    // A lone surrogate: kept as written.
    return pattern;
  }
}

function userAgentOf(value: string): string {
  const lower = value.toLowerCase();
  const slash = lower.indexOf('/');
  return (slash === -1 ? lower : lower.slice(0, slash)).trim();
}

export function compileRule(pattern: string, allow: boolean): Rule {
  const normalised = normalisePattern(pattern);
  const anchored = normalised.endsWith('$');
  const body = anchored ? normalised.slice(0, -1) : normalised;
  // Consecutive `*`s are one: empty pieces between them are dropped (the first and last are kept).
  const split = body.split('*');
  const pieces = split.filter((piece, i) => piece !== '' || i === 0 || i === split.length - 1);
  return { allow, length: normalised.length, pieces, anchored, minLength: pieces.reduce((n, p) => n + p.length, 0) };
}

/** Whether a compiled pattern matches `path` from its start: linear in both (see the file comment). */
export function ruleMatches(rule: Rule, path: string): boolean {
  const { pieces, anchored } = rule;
  if (path.length < rule.minLength) return false;
  const first = pieces[0] ?? '';
  if (!path.startsWith(first)) return false;
  if (pieces.length === 1) return !anchored || path.length === first.length;
  let at = first.length;
  const lastIndex = pieces.length - 1;
  for (let i = 1; i < lastIndex; i++) {
    const piece = pieces[i] ?? '';
    const found = path.indexOf(piece, at);
    if (found === -1) return false;
    at = found + piece.length;
  }
  const last = pieces[lastIndex] ?? '';
  // After a `*`, the last piece may sit anywhere at or after `at`; anchored, it must end the path.
  if (anchored) return path.length - last.length >= at && path.endsWith(last);
  return path.indexOf(last, at) !== -1;
}

/** Longest line read, as Google's parser has it (eight times the 2,083 bytes browsers allow a URL); the rest is ignored. */
const MAX_LINE_CHARS = 2_083 * 8;

/** The first `maxBytes` of the file (a line cut there is read as far as it goes, as Google does), and whether anything was cut. */
function boundedText(body: Buffer, maxBytes: number): { text: string; truncated: boolean } {
  if (body.length <= maxBytes) return { text: body.toString('utf8'), truncated: false };
  return { text: body.subarray(0, maxBytes).toString('utf8'), truncated: true };
}

/** Lines parsed between turns of the event loop: a file of tens of thousands of rules is not parsed in one. */
const LINES_PER_TURN = 2_000;

export async function parseRobots(body: Buffer, agent: string, maxBytes: number): Promise<RobotsRules> {
  const { text, truncated } = boundedText(body, maxBytes);
  const groups = new Map<string, Group>();
  const sitemaps: string[] = [];
  let current: string[] = [];
  let afterOtherLine = true;
  const groupsOfCurrent = (): Group[] =>
    current.map((name) => {
      let group = groups.get(name);
      if (!group) {
        group = { rules: [] };
        groups.set(name, group);
      }
      return group;
    });
  const lines = text.split(/\r\n|\r|\n/);
  for (let n = 0; n < lines.length; n++) {
    if (n > 0 && n % LINES_PER_TURN === 0) await nextTurn();
    const whole = lines[n] ?? '';
    const raw = whole.length > MAX_LINE_CHARS ? whole.slice(0, MAX_LINE_CHARS) : whole;
    const hash = raw.indexOf('#');
    const line = hash === -1 ? raw : raw.slice(0, hash);
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === '') continue;
    switch (key) {
      case 'user-agent':
        if (afterOtherLine) current = [];
        if (value !== '') current.push(userAgentOf(value));
        break;
      case 'allow':
      case 'disallow':
        for (const group of groupsOfCurrent()) if (value !== '') group.rules.push(compileRule(value, key === 'allow'));
        break;
      case 'crawl-delay': {
        const delay = Number(value);
        for (const group of groupsOfCurrent()) if (!Number.isNaN(delay)) group.crawlDelay = delay;
        break;
      }
      case 'sitemap':
        if (value !== '') sitemaps.push(value);
        break;
      default:
        break;
    }
    afterOtherLine = key !== 'user-agent';
  }
  const group = groups.get(userAgentOf(agent)) ?? groups.get('*');
  const rules = group?.rules ?? [];
  return {
    crawlDelay: group?.crawlDelay,
    sitemaps,
    truncated,
    isAllowed(url: URL): boolean {
      const path = toUpperEscapes(url.pathname + url.search);
      let best: Rule | null = null;
      for (const rule of rules) {
        if (best !== null && (rule.length < best.length || (rule.length === best.length && (best.allow || !rule.allow)))) continue;
        if (ruleMatches(rule, path)) best = rule;
      }
      return best === null || best.allow;
    },
  };
}
