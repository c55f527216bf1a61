import { smolToml } from '../../model/safe-parse.js';
import type { FileProblem } from '../types.js';

/**
 * Bounded TOML reading for Cargo files, and typed accessors so that no value of an unexpected
 * shape escapes: every reader of a TOML document goes through `table`/`text`/`list` and gets
 * null (or an empty value) instead of a TypeError.
 */

/** Largest Cargo file read (characters). Cargo.lock of the biggest public workspaces stay under 2 MiB. */
export const MAX_CARGO_FILE_CHARS = 16 * 1024 * 1024;
/**
 * Inline tables and arrays nested deeper than this are rejected by the parser before it recurses.
 * Deep dotted headers (`[a.b.c…]`) are built iteratively by smol-toml, and nothing here walks a
 * document generically, so they need no bound of their own.
 */
const MAX_INLINE_DEPTH = 32;

export type TomlDoc = Readonly<Record<string, unknown>>;

export type TomlRead = { readonly ok: true; readonly doc: TomlDoc } | { readonly ok: false; readonly problem: FileProblem };

export function readToml(path: string, content: string): TomlRead {
  if (content.length > MAX_CARGO_FILE_CHARS) {
    return { ok: false, problem: { path, reason: 'limit_exceeded', message: `file is larger than ${MAX_CARGO_FILE_CHARS} characters` } };
  }
  try {
    // `__proto__` keys are kept as own properties (smol-toml defines them safely): a crate may be
    // called `constructor`. Lookups go through `own`, so inherited members are never read.
    const doc = smolToml().parse(content, { maxDepth: MAX_INLINE_DEPTH });
    return { ok: true, doc };
  } catch (error) {
    if (error instanceof smolToml().TomlError) {
      const message = error.message.split('\n', 1)[0] ?? 'invalid TOML';
      return { ok: false, problem: { path, reason: 'malformed', message: `invalid TOML: ${message}`, line: error.line, column: error.column } };
    }
    // smol-toml reports everything as TomlError; anything else (a stack overflow) is still the file's fault.
    return { ok: false, problem: { path, reason: 'malformed', message: 'invalid TOML' } };
  }
}

/** An own member of a table (never an inherited one such as `constructor`). */
export function own(t: TomlDoc | null, key: string): unknown {
  return t !== null && Object.hasOwn(t, key) ? t[key] : undefined;
}

export function table(value: unknown): TomlDoc | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date) ? (value as TomlDoc) : null;
}

export { stringOrNull as text } from '../shared/narrow.js';

export function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function textList(value: unknown): string[] {
  return list(value).filter((v): v is string => typeof v === 'string');
}

/** The entries of a table, or none. */
export function entries(value: unknown): [string, unknown][] {
  const t = table(value);
  return t === null ? [] : Object.entries(t);
}
