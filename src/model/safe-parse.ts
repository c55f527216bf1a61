import type * as FastXmlParser from 'fast-xml-parser';
import type { X2jOptions } from 'fast-xml-parser';
import type * as JsoncParser from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import type * as SmolToml from 'smol-toml';
import type * as Yaml from 'yaml';
import type { CST, LineCounter, YAMLError } from 'yaml';
import { lazily, requirePackage } from './lazy-require.js';
import { AnalysisError, LimitExceededError, type FileProblem, type FileProblemReason } from './types.js';

export const xmlParser = lazily(() => requirePackage('fast-xml-parser') as typeof FastXmlParser);
const jsonc = lazily(() => requirePackage('jsonc-parser') as typeof JsoncParser);
export const smolToml = lazily(() => requirePackage('smol-toml') as typeof SmolToml);
const yaml = lazily(() => requirePackage('yaml') as typeof Yaml);

/**
 * The one place uploaded text becomes data, for every ecosystem: each parser checks nesting
 * depth with a linear scan before any recursive step runs, and every failure is an
 * AnalysisError naming the file (and line where known). Structural bounds that parsers check
 * while walking the data are here too, so every ecosystem enforces the same documented limits.
 */

/** Documented in the README ("Hostile input and limits"); changing one changes the contract. */
export const INPUT_LIMITS = {
  /** Nesting of objects/arrays/tables/elements in any parsed file. */
  maxDepth: 128,
  /** Entries (packages) in one lockfile. */
  maxEntries: 100_000,
  /** Declared dependencies of one entry. */
  maxEdgesPerEntry: 10_000,
  /** `/`-separated segments of one key or install path. */
  maxPathSegments: 256,
  /** Characters of one key (entry key, install path, descriptor). */
  maxKeyLength: 4_096,
  /** Characters of one line in line-oriented formats (YAML, yarn.lock…); not JSON, which may be one line. */
  maxLineLength: 65_536,
  /** YAML alias expansions per document (the yaml library's own default). */
  maxYamlAliases: 100,
} as const;

export type InputLimit = keyof typeof INPUT_LIMITS;

const LIMIT_REASON: Readonly<Record<Exclude<InputLimit, 'maxYamlAliases'>, FileProblemReason>> = {
  maxDepth: 'too_deep',
  maxEntries: 'too_many_entries',
  maxEdgesPerEntry: 'too_many_edges',
  maxPathSegments: 'too_many_path_segments',
  maxKeyLength: 'key_too_long',
  maxLineLength: 'line_too_long',
};

/** The failure for a file over one of the limits. */
export function limitExceeded(path: string, limit: InputLimit, extra: Omit<FileProblem, 'path' | 'reason' | 'limit'> = {}): LimitExceededError {
  const reason = limit === 'maxYamlAliases' ? 'too_many_aliases' : LIMIT_REASON[limit];
  const bound = INPUT_LIMITS[limit];
  return new LimitExceededError('execution_failed', { name: limit, value: bound }, `${path}: exceeds ${limit} (${bound})`, [
    { path, reason, limit: bound, ...extra },
  ]);
}

/** A file that is not valid in its syntax; callers usually report it as unreadable and go on. */
export function syntaxError(path: string, detail: string, where: { line?: number; column?: number } = {}, cause?: unknown): AnalysisError {
  const problem: FileProblem = { path, reason: 'syntax', ...where };
  return new AnalysisError('resolution_failed', `${path}: ${detail}`, { problems: [problem], cause });
}

/** 1-based line and column of a character offset (a linear scan, done only on failure). */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/** What the depth scan stops at: brackets and quotes, and in JSONC the slash of a comment. */
const STRUCTURE = /["[\]{}]/g;
const STRUCTURE_OR_COMMENT = /["/[\]{}]/g;

/** Offset of the quote closing the string opened at `open`; the text's length if none does. */
function stringEnd(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    // Escaped when an odd number of backslashes precede it (the opening quote stops the count).
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 92 /* \ */) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

/**
 * Deepest `{`/`[` nesting of JSON (or JSONC, with comments) text, skipping strings; throws as
 * soon as it passes the limit. Linear and iterative, so it runs before any recursive parser. It
 * jumps from one structural character to the next (a regular expression, then `indexOf` to a
 * string's end) rather than visiting every character: this scan had cost as much as JSON.parse.
 */
function checkBracketDepth(path: string, text: string, comments: boolean): void {
  const structure = comments ? STRUCTURE_OR_COMMENT : STRUCTURE;
  structure.lastIndex = 0;
  let depth = 0;
  for (let found = structure.exec(text); found !== null; found = structure.exec(text)) {
    let i = found.index;
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i = stringEnd(text, i);
    } else if (c === 47 /* / */) {
      const next = text.charCodeAt(i + 1);
      if (next === 47) {
        const newline = text.indexOf('\n', i);
        i = newline === -1 ? text.length : newline;
      } else if (next === 42 /* * */) {
        const close = text.indexOf('*/', i + 2);
        i = close === -1 ? text.length : close + 1;
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > INPUT_LIMITS.maxDepth) throw limitExceeded(path, 'maxDepth', positionOf(text, i));
    } else {
      depth = Math.max(0, depth - 1);
    }
    structure.lastIndex = i + 1;
  }
}

function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Strict JSON (a BOM allowed), depth-checked first. */
export function parseJson(path: string, text: string): unknown {
  const source = withoutBom(text);
  checkBracketDepth(path, source, false);
  try {
    return JSON.parse(source) as unknown;
  } catch (error) {
    // JSON.parse's message carries no reliable position; jsonc-parser in strict mode finds it.
    const errors: ParseError[] = [];
    jsonc().parse(source, errors, { allowTrailingComma: false, disallowComments: true });
    const first = errors[0];
    throw syntaxError(path, 'not valid JSON', first ? positionOf(source, first.offset) : {}, error);
  }
}

/** JSON with comments and trailing commas (bun.lock, tsconfig-like files), depth-checked first. */
export function parseJsonc(path: string, text: string): unknown {
  const source = withoutBom(text);
  checkBracketDepth(path, source, true);
  const errors: ParseError[] = [];
  const data: unknown = jsonc().parse(source, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) throw syntaxError(path, 'not valid JSON with comments', positionOf(source, first.offset));
  return data;
}

/**
 * Nesting by indentation (yarn.lock, Gemfile.lock and other indented formats whose parsers
 * recurse per level): a stack of open indents, linear in the text. Blank and comment lines
 * do not count. Line lengths are bounded on the way (maxLineLength).
 */
export function checkIndentationDepth(path: string, text: string): void {
  const open: number[] = [];
  let line = 0;
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    line++;
    if (stop - start > INPUT_LIMITS.maxLineLength) throw limitExceeded(path, 'maxLineLength', { line });
    let indent = start;
    while (indent < stop && (text.charCodeAt(indent) === 32 || text.charCodeAt(indent) === 9)) indent++;
    const first = text.charCodeAt(indent);
    if (indent < stop && first !== 35 /* # */ && first !== 13 /* \r */) {
      const width = indent - start;
      while (open.length > 0 && (open.at(-1) ?? 0) >= width) open.pop();
      open.push(width);
      if (open.length > INPUT_LIMITS.maxDepth) throw limitExceeded(path, 'maxDepth', { line });
    }
    start = stop + 1;
  }
}

type CstNode = CST.Token | null | undefined;

/** Deepest collection nesting in a YAML CST, walked with an explicit stack (never recursion). */
function checkYamlDepth(path: string, tokens: Iterable<CST.Token>, lines: LineCounter): void {
  const stack: [CstNode, number][] = [];
  for (const token of tokens) stack.push([token, 0]);
  while (stack.length > 0) {
    const [node, depth] = stack.pop() ?? [null, 0];
    if (!node) continue;
    if (node.type === 'document') {
      stack.push([node.value, depth]);
    } else if (node.type === 'block-map' || node.type === 'block-seq' || node.type === 'flow-collection') {
      if (depth + 1 > INPUT_LIMITS.maxDepth) {
        const where = lines.linePos(node.offset);
        throw limitExceeded(path, 'maxDepth', { line: where.line, column: where.col });
      }
      for (const item of node.items) {
        if ('key' in item) stack.push([item.key, depth + 1]);
        stack.push([item.value, depth + 1]);
      }
    }
  }
}

function yamlFailure(path: string, error: YAMLError, lines: LineCounter): AnalysisError {
  const where = lines.linePos(error.pos[0]);
  const position = { line: where.line, column: where.col };
  return syntaxError(path, error.message.split('\n')[0] ?? 'not valid YAML', position, error);
}

/**
 * Every document of a YAML stream as plain data. Depth is checked on the parser's tokens before
 * documents are composed; aliases are capped at the library's default and expanded at most
 * `maxYamlAliases` times; `<<` merge keys are not honoured (an ordinary key), so they cannot
 * multiply anything either.
 */
export function parseYamlDocuments(path: string, text: string): unknown[] {
  // Flow brackets first: the yaml library's own parser takes seconds on a run of 100,000 `[`.
  // Quotes are tracked as in JSON, so at worst a bracket inside a string counts too (a file
  // would need 128 unbalanced ones to be refused).
  checkBracketDepth(path, text, false);
  // Long lines next: the yaml library spends seconds on a line of 300,000 quotes.
  checkIndentationDepth(path, text);
  const { Composer, LineCounter, Parser, YAMLError } = yaml();
  const lines = new LineCounter();
  // Tokens once (the parser is iterative), depth-checked, then composed: parseAllDocuments' steps.
  const tokens = Array.from(new Parser(lines.addNewLine).parse(text));
  checkYamlDepth(path, tokens, lines);
  // Duplicate keys are not looked for: the library's check scans the map per key (quadratic on
  // a lockfile's big maps). The last value wins, as with JSON.
  const composer = new Composer({ merge: false, uniqueKeys: false });
  const out: unknown[] = [];
  for (const doc of composer.compose(tokens, true, text.length)) {
    const error = doc.errors[0];
    if (error) throw yamlFailure(path, error, lines);
    try {
      out.push(doc.toJS({ maxAliasCount: INPUT_LIMITS.maxYamlAliases }) as unknown);
    } catch (failure) {
      if (failure instanceof YAMLError) throw yamlFailure(path, failure, lines);
      // The yaml library signals an over-expanded alias with a ReferenceError and no code.
      if (failure instanceof ReferenceError) throw limitExceeded(path, 'maxYamlAliases');
      throw failure;
    }
  }
  return out;
}

/** A single-document YAML file (the first document when there are several). */
export function parseYaml(path: string, text: string): unknown {
  return parseYamlDocuments(path, text)[0] ?? null;
}

/** TOML (Cargo.lock, pyproject.toml, poetry.lock…) with smol-toml's own depth bound. */
export function parseToml(path: string, text: string): Record<string, unknown> {
  try {
    return smolToml().parse(withoutBom(text), { maxDepth: INPUT_LIMITS.maxDepth });
  } catch (error) {
    if (error instanceof smolToml().TomlError) {
      const where = { line: error.line, column: error.column };
      // smol-toml reports its depth bound with a message only (no code).
      if (/nested/i.test(error.message)) throw limitExceeded(path, 'maxDepth', where);
      throw syntaxError(path, error.message.split('\n')[0] ?? 'not valid TOML', where, error);
    }
    throw syntaxError(path, 'not valid TOML', {}, error);
  }
}

/** XML (pom.xml, *.csproj, packages.config) with fast-xml-parser's nesting bound; no entities expanded. */
export function parseXml(path: string, text: string, options: Omit<X2jOptions, 'maxNestedTags' | 'processEntities'> = {}): unknown {
  const parser = new (xmlParser().XMLParser)({ ...options, maxNestedTags: INPUT_LIMITS.maxDepth, processEntities: false });
  try {
    return parser.parse(withoutBom(text)) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // fast-xml-parser reports its nesting bound with a message only (no code).
    if (/nested tags/i.test(message)) throw limitExceeded(path, 'maxDepth');
    throw syntaxError(path, message.split('\n')[0] ?? 'not valid XML', {}, error);
  }
}

/**
 * Bounds checked while a parser walks its data: one object per lockfile, so every message
 * names the file. Each check is O(1) apart from counting a key's segments (O(key length)).
 */
export class StructureBounds {
  constructor(readonly path: string) {}

  entries(count: number): void {
    if (count > INPUT_LIMITS.maxEntries) throw limitExceeded(this.path, 'maxEntries');
  }

  /** A key or install path: its length, and its `/`-separated segments. */
  key(key: string): void {
    if (key.length > INPUT_LIMITS.maxKeyLength) throw limitExceeded(this.path, 'maxKeyLength', { package: key.slice(0, 200) });
    let segments = 1;
    for (let i = key.indexOf('/'); i !== -1; i = key.indexOf('/', i + 1)) {
      if (++segments > INPUT_LIMITS.maxPathSegments) throw limitExceeded(this.path, 'maxPathSegments', { package: key.slice(0, 200) });
    }
  }

  edges(entry: string, count: number): void {
    if (count > INPUT_LIMITS.maxEdgesPerEntry) throw limitExceeded(this.path, 'maxEdgesPerEntry', { package: entry.slice(0, 200) });
  }
}

/**
 * Runs one file's parser so that nothing untyped escapes: AnalysisErrors pass through, a stack
 * overflow is the depth limit, anything else (a TypeError on a shape the parser did not expect)
 * becomes an `unexpected_structure` problem naming the file.
 */
export function guardParse<T>(path: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof AnalysisError) throw error;
    // V8 reports a stack overflow as a RangeError with a message and no code; the depth checks
    // should make it unreachable, and if a parser still recurses too deep, it is the depth limit.
    if (error instanceof RangeError && /call stack/i.test(error.message)) throw limitExceeded(path, 'maxDepth');
    throw new AnalysisError('resolution_failed', `${path}: unexpected structure`, {
      problems: [{ path, reason: 'unexpected_structure' }],
      cause: error,
    });
  }
}
