import { RE2JS, RE2JSException } from 're2js';

/**
 * What grep looks for, compiled once per request: exact text (the default) or an RE2 regular
 * expression run by re2js, a linear-time engine (no backtracking, no backreferences, no
 * lookaround), so no caller pattern can take more than time proportional to the text. Matching is
 * per line, as grep's is: a match never spans a newline. Columns count UTF-16 code units, 1-based,
 * the end exclusive (what JavaScript strings and the Language Server Protocol count).
 */

export const GREP_LIMITS = {
  /** Longest pattern, in characters. */
  maxPatternLength: 1000,
  /** Largest compiled regular expression, in RE2 instructions. */
  maxProgramSize: 20_000,
  /** Matches reported from one file; more are counted as capped. */
  maxMatchesPerFile: 500,
  /** Text read by one request (indexed candidates and unindexed files alike). */
  maxBytesScanned: 64 * 1024 * 1024,
  /**
   * Work of one request: program instructions × characters matched, the worst case of a
   * linear-time engine (about 2 s of a thread at re2js's slowest); a larger program scans fewer
   * characters per page. A line costing more than this alone is not matched (`skipped_lines`).
   */
  maxScanWork: 100_000_000,
  /** Wall time one request scans for before it answers with what it has. */
  maxScanMs: 3000,
  /** Longest line (or context line) returned; longer ones are cut around the match. */
  maxLineLength: 2000,
} as const;

export interface GrepPattern {
  readonly pattern: string;
  readonly regex: boolean;
  readonly caseSensitive: boolean;
}

export class GrepPatternError extends Error {}

export interface LineMatch {
  /** 0-based UTF-16 offsets within the line. */
  readonly start: number;
  readonly end: number;
}

export interface Matcher {
  /** RE2 instructions of the program (1 for exact, case-sensitive text): the work per character. */
  readonly programSize: number;
  /** Whether the text has any match at all (a cheap test before per-line work). */
  test(text: string): boolean;
  /** The matches of one line, left to right, non-overlapping. */
  line(text: string): LineMatch[];
  /** What the trigram index can be asked (see `InventoryStore.grepCandidates`), or null when it cannot narrow. */
  readonly prefilter: { readonly kind: 'like' | 'regex'; readonly pattern: string } | null;
}

const LOOKAROUND = /\(\?<?[=!]/;

/** LIKE's wildcards and its escape character, escaped. */
function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/**
 * The pattern in PostgreSQL's advanced regular expression syntax when it means at least what it
 * means to RE2 (every line RE2 matches, PostgreSQL matches too), else null and no prefilter is
 * used. Only a conservative subset qualifies: literals, escaped punctuation, `.`, bracket
 * expressions without classes or escapes, `\d\w\s` and their negations, `* + ? {m,n}` (lazy
 * forms too), groups, `(?:`, alternation and `^ $`. `(?n)` makes `^`, `$`, `.` and negated
 * brackets work line by line, as grep's lines do (`$` may follow a CR); `\b` is left out (a
 * backspace to PostgreSQL).
 */
export function portableRegex(pattern: string): string | null {
  let out = '';
  let inBracket = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? '';
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) return null;
      if (inBracket) return null;
      if (/[dDwWsS]/.test(next) || /[.*+?()[\]{}|^$\\/-]/.test(next)) {
        out += `\\${next}`;
        i++;
        continue;
      }
      return null;
    }
    if (inBracket) {
      if (c === '[') return null;
      if (c === ']') inBracket = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inBracket = true;
      out += c;
      // `[]a]` and `[^]a]`: a leading `]` is a literal in both syntaxes.
      if (pattern[i + 1] === '^') {
        out += '^';
        i++;
      }
      if (pattern[i + 1] === ']') {
        out += ']';
        i++;
      }
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      if (pattern[i + 2] !== ':') return null;
      out += '(?:';
      i += 2;
      continue;
    }
    // A line of a CRLF file ends before its CR for grep; for PostgreSQL the CR is still there.
    if (c === '$') {
      out += '\\r?$';
      continue;
    }
    out += c;
  }
  if (inBracket) return null;
  // PostgreSQL's repetition counts stop at 255 (RE2's at 1,000): a larger one is left to the scan.
  for (const m of out.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) if (Number(m[1]) > 255 || Number(m[2] ?? 0) > 255) return null;
  return `(?n)${out}`;
}

/**
 * The checks that need no compilation (cheap enough for the API thread): the pattern's length,
 * line breaks, lookaround, and NUL, which no text file holds and PostgreSQL's text cannot.
 */
export function checkPattern(input: GrepPattern): void {
  const { pattern, regex } = input;
  if (pattern === '') throw new GrepPatternError('pattern must not be empty');
  if (pattern.length > GREP_LIMITS.maxPatternLength) throw new GrepPatternError(`pattern is longer than ${GREP_LIMITS.maxPatternLength} characters`);
  if (pattern.includes('\u0000')) throw new GrepPatternError('pattern must not contain NUL (U+0000): no text file holds one');
  if (/[\r\n]/.test(pattern) && !regex) throw new GrepPatternError('pattern must not contain a line break: matching is per line');
  if (regex && LOOKAROUND.test(pattern)) throw new GrepPatternError('lookaround is not supported (RE2 syntax)');
}

/** Whether matching needs no regular expression (exact, case-sensitive text: `indexOf`). */
export function isPlainText(input: GrepPattern): boolean {
  return !input.regex && input.caseSensitive;
}

/** What the trigram index can be asked for this pattern (see `Matcher.prefilter`), without compiling it. */
export function prefilterOf(input: GrepPattern): Matcher['prefilter'] {
  if (!input.regex) return { kind: 'like', pattern: `%${likeEscape(input.pattern)}%` };
  const portable = portableRegex(input.pattern);
  return portable === null ? null : { kind: 'regex', pattern: portable };
}

/** Compiles a pattern (its program can cost ~100 ms to build: a grep thread does it, see src/threads/grep-pool.ts). */
export function compileMatcher(input: GrepPattern): Matcher {
  const { pattern, regex, caseSensitive } = input;
  checkPattern(input);
  if (isPlainText(input)) {
    return {
      programSize: 1,
      test: (text) => text.includes(pattern),
      line: (text) => {
        const out: LineMatch[] = [];
        for (let at = text.indexOf(pattern); at !== -1; at = text.indexOf(pattern, at + pattern.length)) out.push({ start: at, end: at + pattern.length });
        return out;
      },
      prefilter: { kind: 'like', pattern: `%${likeEscape(pattern)}%` },
    };
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(regex ? pattern : RE2JS.quote(pattern), caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    if (error instanceof RE2JSException) throw new GrepPatternError(`pattern is not an RE2 regular expression: ${error.message}`);
    throw error;
  }
  const programSize = re.matcher('').programSize();
  if (programSize > GREP_LIMITS.maxProgramSize) throw new GrepPatternError('pattern compiles to too large a program; simplify it');
  // The whole-text test reads `^` and `$` at every line, as the per-line pass does; a text with
  // CR line ends (where `$` would stop before the CR) goes straight to the per-line pass.
  const whole = RE2JS.compile(regex ? pattern : RE2JS.quote(pattern), (caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE) | RE2JS.MULTILINE);
  return {
    programSize,
    // A match across lines only costs a per-line pass that finds nothing.
    test: (text) => text.includes('\r') || whole.matcher(text).find(),
    line: (text) => {
      const out: LineMatch[] = [];
      const m = re.matcher(text);
      let from = 0;
      while (from <= text.length && m.find(from)) {
        const start = m.start();
        const end = m.end();
        out.push({ start, end });
        // An empty match moves on by one, as every engine's global search does.
        from = end > start ? end : end + 1;
      }
      return out;
    },
    prefilter: prefilterOf(input),
  };
}

/** Start offsets of every line of a text (a final line without a newline included). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) if (i + 1 < text.length) starts.push(i + 1);
  return starts;
}

/** A line without its line break (`\r\n` too). */
export function lineAt(text: string, starts: readonly number[], index: number): string {
  const start = starts[index] ?? text.length;
  const next = starts[index + 1];
  let end = next === undefined ? text.length : next - 1;
  if (next === undefined && text.endsWith('\n')) end = text.length - 1;
  if (end > start && text[end - 1] === '\r') end--;
  return text.slice(start, end);
}

/** A line cut to the returned length around `focus`: the text and the 0-based offset it starts at. */
export function window(line: string, focus: number): { text: string; offset: number } {
  const max = GREP_LIMITS.maxLineLength;
  if (line.length <= max) return { text: line, offset: 0 };
  const offset = Math.max(0, Math.min(focus - Math.floor(max / 4), line.length - max));
  return { text: line.slice(offset, offset + max), offset };
}
