import { LRUCache } from 'lru-cache';
import picomatch from 'picomatch';
import { RE2JS, RE2JSException } from 're2js';

/**
 * List selectors' globs, matched in time linear in the path: each glob is translated to an RE2
 * program run by re2js (no backtracking), instead of picomatch's JavaScript regular expression,
 * which backtracks (`**\/*n*n*x` against a 60,000-character path never answered). The
 * translation keeps picomatch's meaning with `dot: true` for what selectors use: `*` and `?`
 * within a segment (dotfiles included), `**` as a whole segment for any number of segments,
 * `[...]` classes (ranges, `[^...]`, POSIX names; the bracketed text also matches literally, as
 * picomatch does for `app/[slug]`), `{a,b}` alternatives (nested, across segments) and `{a..c}`
 * ranges, the extglobs `@()`, `?()`, `*()`, `+()`, `(a|b)` groups, `\` escapes and a leading `!`
 * negating the whole glob. Not kept: `!(...)` (a complement has no RE2 form: refused), and wildcards
 * never match `.` or `..` segments (paths holding one are left to literal selectors).
 */

export const GLOB_LIMITS = {
  /** Paths longer than this (UTF-16 units) are never matched by a glob: each path's work is at most this × the program size. */
  maxPathLength: 1024,
  /** Characters of all globs of one selection together: bounds their compilation before it starts. */
  maxGlobLength: 1024,
  /** RE2 instructions of all globs of one selection together: bounds each path's matching work. */
  maxProgramSize: 2048,
} as const;

export class GlobError extends Error {}

/** Whether a selector is a glob (picomatch's own scan, a linear pass) rather than a literal path. */
export function isGlob(selector: string): boolean {
  return picomatch.scan(selector).isGlob;
}

/**
 * Why the globs of a selection cannot be matched (null when they can): one that does not compile,
 * or all of them together over the length or program bounds.
 */
export function globsProblem(selectors: readonly string[]): string | null {
  const globs = selectors.filter((s) => s !== '' && isGlob(s));
  // Checked before anything is compiled: compiling costs time in proportion to the text.
  const length = globs.reduce((n, s) => n + s.length, 0);
  if (length > GLOB_LIMITS.maxGlobLength) return `paths: the globs are ${length} characters together, more than ${GLOB_LIMITS.maxGlobLength}`;
  let program = 0;
  for (const s of globs) {
    try {
      program += compileGlob(s).programSize;
    } catch (error) {
      if (error instanceof GlobError) return `paths: ${JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s)}: ${error.message}`;
      throw error;
    }
  }
  if (program > GLOB_LIMITS.maxProgramSize) return `paths: the globs compile to ${program} instructions together, more than ${GLOB_LIMITS.maxProgramSize}; simplify them`;
  return null;
}

export type GlobMatcher = (path: string) => boolean;

const POSIX: Readonly<Record<string, string>> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  ascii: '\\x00-\\x7F',
  blank: ' \\t',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '\\x21-\\x7E',
  lower: 'a-z',
  print: '\\x20-\\x7E',
  punct: '!-/:-@\\[-`{-~',
  space: ' \\t\\r\\n\\v\\f',
  upper: 'A-Z',
  word: 'A-Za-z0-9_',
  xdigit: 'A-Fa-f0-9',
};

const STAR = '[^/]*';
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

function quote(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

/** Index of the bracket closing the one at `open` (same kind, nesting, escapes), or -1. */
function closing(glob: string, open: number, opener: string, closer: string): number {
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') i++;
    else if (c === opener) depth++;
    else if (c === closer && --depth === 0) return i;
  }
  return -1;
}

/** Splits at `sep` outside nested braces, parentheses and brackets, and outside escapes. */
function splitTop(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') depth = Math.max(0, depth - 1);
    else if (c === sep && depth === 0) {
      parts.push(text.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(text.slice(from));
  return parts;
}

/** A bracket expression's RE2 class, or null when it is not one (then `[` is literal). */
function bracket(glob: string, open: number): { end: number; re: string } | null {
  let i = open + 1;
  let negated = false;
  if (glob[i] === '^') {
    negated = true;
    i++;
  }
  let body = '';
  // A `]` first in the class is a member.
  for (let first = true; i < glob.length; i++, first = false) {
    const c = glob[i] ?? '';
    if (c === ']' && !first) {
      if (body === '') return null;
      const literal = quote(glob.slice(open, i + 1));
      // A negated class never matches `/`; picomatch also matches the bracketed text itself.
      return { end: i + 1, re: `(?:${literal}|[${negated ? '^/' : ''}${body}])` };
    }
    if (c === '[' && glob[i + 1] === ':') {
      const close = glob.indexOf(':]', i + 2);
      const name = close === -1 ? undefined : POSIX[glob.slice(i + 2, close)];
      if (name !== undefined) {
        body += name;
        i = close + 1;
        continue;
      }
    }
    if (c === '\\') {
      const next = glob[i + 1];
      if (next === undefined) return null;
      body += quote(next);
      i++;
      continue;
    }
    body += c === '-' ? '-' : quote(c);
  }
  return null;
}

/** `{a..c}`: picomatch's class from the two ends, or null when they do not make one. */
function range(inner: string): string | null {
  const m = /^([A-Za-z0-9]+)\.\.([A-Za-z0-9]+)$/.exec(inner);
  if (m === null) return null;
  const [, from = '', to = ''] = m;
  const re = `[${from}-${to}]`;
  try {
    RE2JS.compile(re);
    return re;
  } catch {
    return null;
  }
}

/** RE2 source of `glob` (one alternative: no leading negation here). */
function translate(glob: string): string {
  let out = '';
  let i = 0;
  const segmentStart = (at: number): boolean => at === 0 || glob[at - 1] === '/';
  while (i < glob.length) {
    const c = glob[i] ?? '';
    if (c === '\\') {
      const next = glob[i + 1];
      out += quote(next ?? '\\');
      i += next === undefined ? 1 : 2;
      continue;
    }
    if (c === '*') {
      let stars = 0;
      while (glob[i + stars] === '*') stars++;
      const end = i + stars;
      if (stars === 2 && segmentStart(i) && (end === glob.length || glob[end] === '/')) {
        // `**` alone in its segment: any number of segments, none at all included.
        if (end === glob.length) {
          // `a/**` is `a` too, but picomatch's `*/**` needs the slash (a folder's contents).
          if (out.endsWith('/') && !out.endsWith(`${STAR}/`)) out = `${out.slice(0, -1)}(?:/.*)?`;
          else out += '.*';
          i = end;
        } else {
          out += '(?:.*/)?';
          i = end + 1;
        }
        continue;
      }
      // An extglob `*(...)` begins with the last star; the stars before it are one.
      if (glob[end] === '(') {
        const group = extglob(glob, end - 1, '*');
        if (group !== null) {
          out += `${stars > 1 ? STAR : ''}${group.re}`;
          i = group.end;
          continue;
        }
      }
      out += STAR;
      i = end;
      continue;
    }
    if ((c === '?' || c === '+' || c === '@' || c === '!') && glob[i + 1] === '(') {
      if (c === '!') throw new GlobError('the extglob !(...) is not supported; list what to include instead');
      const group = extglob(glob, i, c);
      if (group !== null) {
        out += group.re;
        i = group.end;
        continue;
      }
    }
    if (c === '(') {
      const group = extglob(glob, i - 1, '@');
      if (group !== null) {
        out += group.re;
        i = group.end;
        continue;
      }
    }
    if (c === '?') {
      out += '[^/]';
      i++;
      continue;
    }
    if (c === '[') {
      const cls = bracket(glob, i);
      if (cls !== null) {
        out += cls.re;
        i = cls.end;
        continue;
      }
    }
    if (c === '{') {
      const close = closing(glob, i, '{', '}');
      if (close !== -1) {
        const inner = glob.slice(i + 1, close);
        const alternatives = splitTop(inner, ',');
        const spanned = alternatives.length > 1 ? `(?:${alternatives.map((a) => translate(a)).join('|')})` : range(inner);
        if (spanned !== null) {
          out += spanned;
          i = close + 1;
          continue;
        }
      }
    }
    out += quote(c);
    i++;
  }
  return out;
}

/** An extglob whose operator sits at `at` (its `(` right after), or null when unclosed. */
function extglob(glob: string, at: number, op: string): { end: number; re: string } | null {
  const open = at + 1;
  const close = closing(glob, open, '(', ')');
  if (close === -1) return null;
  const body = splitTop(glob.slice(open + 1, close), '|')
    .map((a) => translate(a))
    .join('|');
  const suffix = op === '?' ? '?' : op === '*' ? '*' : op === '+' ? '+' : '';
  return { end: close + 1, re: `(?:${body})${suffix}` };
}

export interface CompiledGlob {
  readonly match: GlobMatcher;
  readonly programSize: number;
}

/**
 * Compiled globs by selector: a memo of a pure function (a list request and its next pages, the
 * parse that checks a selection and the match that uses it, all compile the same selectors),
 * bounded by the instructions it holds.
 */
const compiled = new LRUCache<string, CompiledGlob>({ max: 2000, maxSize: 200_000, sizeCalculation: (glob) => glob.programSize + 1 });

/** Compiles one selector's glob (picomatch's meaning with `dot: true`, see above). */
export function compileGlob(selector: string): CompiledGlob {
  const known = compiled.get(selector);
  if (known !== undefined) return known;
  const glob = compileUncached(selector);
  compiled.set(selector, glob);
  return glob;
}

function compileUncached(selector: string): CompiledGlob {
  let negations = 0;
  while (selector[negations] === '!' && selector[negations + 1] !== '(') negations++;
  // Globstars in a row are one (`a/**/**/b` is `a/**/b`), as picomatch reads them.
  const source = translate(selector.slice(negations).replace(/(^|\/)\*\*(?:\/\*\*)+(?=\/|$)/g, '$1**'));
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, RE2JS.DOTALL);
  } catch (error) {
    if (error instanceof RE2JSException) throw new GlobError(`the glob cannot be compiled (${error.message})`);
    throw error;
  }
  const negated = negations % 2 === 1;
  const body = selector.slice(negations);
  const match: GlobMatcher = (path) => {
    // The cap keeps each path's work small whatever the glob; no stored path that long is named by a glob.
    if (path.length > GLOB_LIMITS.maxPathLength || DOT_SEGMENT.test(path)) return false;
    // picomatch takes a path equal to the glob's text as a match first (`app/[slug]`, `(a|b)`).
    return (path === body || re.testExact(path)) !== negated;
  };
  return { match, programSize: re.matcher('').programSize() };
}
