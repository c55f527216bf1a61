/**
 * The line-oriented syntax shared by go.mod and go.work, tokenised as the Go reference describes it
 * (https://go.dev/ref/mod#go-mod-file-lexical and #go-mod-file-grammar; the go command's own
 * reader is golang.org/x/mod/modfile/read.go). No well-kept npm library parses these files, so this
 * is written here from the specification. One pass over the text, no backtracking: linear in size.
 */

/** Bounds on one Go file; beyond them the file is refused, never read into unbounded structures. */
export const GO_FILE_LIMITS = {
  /** Kubernetes' go.sum, among the largest real ones, is under 200 KiB. */
  bytes: 8 * 1024 * 1024,
  lines: 200_000,
  lineLength: 16_384,
  /** Requirements, replacements, go.sum lines… per file. */
  entries: 100_000,
} as const;

export type GoFileReason = 'malformed' | 'limit_exceeded';

/** A Go file that cannot be read; `build` turns it into a `FileProblem` and skips the file. */
export class GoFileError extends Error {
  readonly code = 'GO_FILE_INVALID';
  constructor(
    readonly reason: GoFileReason,
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
    this.name = 'GoFileError';
  }
}

export interface Token {
  readonly text: string;
  /** `ident` and `string` are interchangeable in the grammar; `punct` is one of `()[]{},`. */
  readonly kind: 'ident' | 'string' | 'punct';
  readonly line: number;
  readonly column: number;
}

/** One directive: a single line, or one line of a `verb ( … )` block with the block's verb. */
export interface Statement {
  readonly verb: string;
  readonly args: readonly Token[];
  readonly line: number;
  readonly column: number;
  /** The `//` comment ending the line, without the slashes (`indirect`, a retraction rationale). */
  readonly suffix: string | null;
  /** Whole-line comments just above it (or above its block), without the slashes. */
  readonly before: readonly string[];
}

const PUNCT = new Set(['(', ')', '[', ']', '{', '}', ',']);

/** Editors on Windows may start a file with a byte-order mark; the go command's reader never sees one. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Checks the bounds every Go file shares, before any parsing. */
export function checkBounds(text: string): void {
  if (text.length > GO_FILE_LIMITS.bytes) {
    throw new GoFileError('limit_exceeded', `file is larger than ${GO_FILE_LIMITS.bytes} bytes`);
  }
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); ; i = text.indexOf('\n', i + 1)) {
    const end = i === -1 ? text.length : i;
    if (end - start > GO_FILE_LIMITS.lineLength) {
      throw new GoFileError('limit_exceeded', `line is longer than ${GO_FILE_LIMITS.lineLength} characters`, line);
    }
    if (i === -1) break;
    line++;
    start = i + 1;
    if (line > GO_FILE_LIMITS.lines) throw new GoFileError('limit_exceeded', `file has more than ${GO_FILE_LIMITS.lines} lines`, line);
  }
}

type Lexeme = Token | { readonly kind: 'newline' | 'comment' | 'eolcomment' | 'eof'; readonly text: string; readonly line: number; readonly column: number };

/** Go's unicode.IsPrint minus spaces, approximated: no control characters, no separators. */
function isIdentChar(c: string): boolean {
  if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || PUNCT.has(c)) return false;
  const code = c.charCodeAt(0);
  return code > 0x1f && code !== 0x7f && !(code >= 0x80 && code <= 0x9f) && code !== 0xa0 && code !== 0x2028 && code !== 0x2029 && code !== 0xfeff;
}

function unquote(raw: string, line: number, column: number): string {
  if (raw.startsWith('`')) return raw.slice(1, -1);
  const body = raw.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? '';
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i] ?? '';
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", a: '\x07', b: '\b', f: '\f', v: '\v' };
    const mapped = simple[e];
    if (mapped !== undefined) {
      out += mapped;
      continue;
    }
    const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    const hex = body.slice(i + 1, i + 1 + width);
    if (width === 0 || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) {
      throw new GoFileError('malformed', `invalid escape \\${e} in quoted string`, line, column);
    }
    const point = Number.parseInt(hex, 16);
    if (point > 0x10ffff) throw new GoFileError('malformed', 'invalid code point in quoted string', line, column);
    out += String.fromCodePoint(point);
    i += width;
  }
  return out;
}

/** The lexemes of a Go file (read.go's readToken), each with its 1-based line and column. */
function* lex(text: string): Generator<Lexeme> {
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const n = text.length;
  for (;;) {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r')) i++;
    const column = i - lineStart + 1;
    if (i >= n) {
      yield { kind: 'eof', text: '', line, column };
      return;
    }
    const c = text[i] ?? '';
    if (c === '/' && text[i + 1] === '/') {
      // A comment alone on its line is a top-level comment; after tokens it ends the line.
      const alone = text.slice(lineStart, i).trim() === '';
      const end = text.indexOf('\n', i);
      const body = text.slice(i + 2, end === -1 ? n : end).replace(/\r$/, '').trim();
      yield { kind: alone ? 'comment' : 'eolcomment', text: body, line, column };
      i = end === -1 ? n : end + 1;
      line++;
      lineStart = i;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') throw new GoFileError('malformed', 'Go module files use // comments, not /* */', line, column);
    if (c === '\n') {
      yield { kind: 'newline', text: '\n', line, column };
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (PUNCT.has(c)) {
      yield { kind: 'punct', text: c, line, column };
      i++;
      continue;
    }
    if (c === '"' || c === '`') {
      let j = i + 1;
      while (j < n && text[j] !== c && text[j] !== '\n') j += c === '"' && text[j] === '\\' ? 2 : 1;
      if (j >= n || text[j] !== c) throw new GoFileError('malformed', 'unterminated quoted string', line, column);
      yield { kind: 'string', text: unquote(text.slice(i, j + 1), line, column), line, column };
      i = j + 1;
      continue;
    }
    if (!isIdentChar(c)) throw new GoFileError('malformed', `unexpected character U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`, line, column);
    let j = i;
    while (j < n && isIdentChar(text[j] ?? '') && !(text[j] === '/' && (text[j + 1] === '/' || text[j + 1] === '*'))) j++;
    const word = text.slice(i, j);
    // Other quote characters are reserved (modfile's parseString): `'x'` is an error, not x.
    if (/["'`]/.test(word)) throw new GoFileError('malformed', 'unquoted word contains a quote character', line, column);
    yield { kind: 'ident', text: word, line, column };
    i = j;
  }
}

/**
 * The statements of a Go file, blocks expanded (read.go's parseFile/parseStmt/parseLineBlock).
 * `verb (` at the end of a line opens a block that a `)` alone on its line closes; a `(` elsewhere
 * is an ordinary token.
 */
export function readStatements(raw: string): Statement[] {
  const text = withoutBom(raw);
  checkBounds(text);
  const out: Statement[] = [];
  const tokens = lex(text);
  let pending: string[] = [];
  let look: Lexeme | null = null;
  const next = (): Lexeme => {
    if (look !== null) {
      const l = look;
      look = null;
      return l;
    }
    const r = tokens.next();
    if (r.done === true) throw new GoFileError('malformed', 'unexpected end of file');
    return r.value;
  };
  const peek = (): Lexeme => (look ??= next());
  const isEol = (l: Lexeme): boolean => l.kind === 'newline' || l.kind === 'eof' || l.kind === 'eolcomment';
  const push = (s: Statement): void => {
    if (out.length >= GO_FILE_LIMITS.entries) throw new GoFileError('limit_exceeded', `more than ${GO_FILE_LIMITS.entries} directives`, s.line);
    out.push(s);
  };
  /** Tokens up to the end of the line; returns them and the suffix comment. */
  const restOfLine = (): { args: Token[]; suffix: string | null } => {
    const args: Token[] = [];
    for (;;) {
      const l = next();
      if (l.kind === 'ident' || l.kind === 'string' || l.kind === 'punct') args.push(l);
      else if (isEol(l)) return { args, suffix: l.kind === 'eolcomment' ? l.text : null };
      else throw new GoFileError('malformed', 'unexpected comment', l.line, l.column);
    }
  };
  for (;;) {
    const first = next();
    if (first.kind === 'eof') return out;
    if (first.kind === 'newline') {
      pending = [];
      continue;
    }
    if (first.kind === 'comment') {
      pending.push(first.text);
      continue;
    }
    if (first.kind !== 'ident' && first.kind !== 'string') {
      throw new GoFileError('malformed', `unexpected ${first.kind === 'eolcomment' ? 'comment' : `'${first.text}'`}`, first.line, first.column);
    }
    const verb = first.text;
    const before = pending;
    pending = [];
    const opener = peek();
    if (opener.kind === 'punct' && opener.text === '(') {
      next();
      const after = peek();
      if (after.kind === 'punct' && after.text === ')') {
        next();
        if (!isEol(next())) throw new GoFileError('malformed', 'expected end of line after ( )', after.line, after.column);
        continue;
      }
      if (isEol(after)) {
        next();
        readBlock(verb, before, first);
        continue;
      }
      // `(` in the middle of a line is an ordinary token.
      const { args, suffix } = restOfLine();
      push({ verb, args: [opener, ...args], line: first.line, column: first.column, suffix, before });
      continue;
    }
    const { args, suffix } = restOfLine();
    push({ verb, args, line: first.line, column: first.column, suffix, before });
  }

  function readBlock(verb: string, before: string[], start: Lexeme): void {
    let comments: string[] = [];
    for (;;) {
      const l = peek();
      if (l.kind === 'eof') throw new GoFileError('malformed', `unterminated ${verb} block`, start.line, start.column);
      if (l.kind === 'newline' || l.kind === 'eolcomment') {
        next();
        continue;
      }
      if (l.kind === 'comment') {
        next();
        comments.push(l.text);
        continue;
      }
      if (l.kind === 'punct' && l.text === ')') {
        next();
        if (!isEol(next())) throw new GoFileError('malformed', 'expected end of line after )', l.line, l.column);
        return;
      }
      const { args, suffix } = restOfLine();
      // A line without comments of its own takes the block's (modfile's parseDirectiveComment).
      push({ verb, args, line: l.line, column: l.column, suffix, before: comments.length > 0 ? comments : before });
      comments = [];
    }
  }
}

/** A token's text as a path or version: the grammar treats identifiers and strings alike. */
export function word(token: Token | undefined): string | null {
  if (token === undefined || token.kind === 'punct') return null;
  return token.text;
}
