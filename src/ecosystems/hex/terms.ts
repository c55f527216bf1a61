import { positionOf, syntaxError } from '../../model/safe-parse.js';

/**
 * Elixir term literals as data — what `mix.lock` is written in: maps (`%{"k" => v}`, `%{"k": v}`),
 * tuples, lists, keyword lists (`[hex: :x, optional: false]`), strings, atoms (`:a`, `:"a b"`),
 * numbers, `true`, `false` and `nil`. No npm library reads Elixir terms, so this small reader is
 * written here; it evaluates nothing (anything else is a syntax error), bounded in nesting.
 */

export type Term = string | number | boolean | null | Atom | TupleTerm | Term[] | MapTerm;
export interface Atom {
  readonly atom: string;
}
export interface TupleTerm {
  readonly tuple: Term[];
}
export interface MapTerm {
  readonly map: [Term, Term][];
}

const MAX_DEPTH = 64;

export function isAtom(t: Term | undefined): t is Atom {
  return typeof t === 'object' && t !== null && 'atom' in t;
}
export function isTuple(t: Term | undefined): t is TupleTerm {
  return typeof t === 'object' && t !== null && 'tuple' in t;
}
export function isMap(t: Term | undefined): t is MapTerm {
  return typeof t === 'object' && t !== null && 'map' in t;
}

/** A string or an atom's name; null for anything else. */
export function nameOf(t: Term | undefined): string | null {
  if (typeof t === 'string') return t;
  return isAtom(t) ? t.atom : null;
}

/** The value of a keyword list's key (`[hex: :x]`), or undefined. */
export function keyword(list: Term | undefined, key: string): Term | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const item of list) if (isTuple(item) && item.tuple.length === 2 && nameOf(item.tuple[0]) === key && isAtom(item.tuple[0])) return item.tuple[1];
  return undefined;
}

export function parseTerm(path: string, text: string): Term {
  let i = 0;
  const fail = (what: string): never => {
    throw syntaxError(path, what, positionOf(text, i));
  };
  const space = (): void => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i] ?? '')) i++;
      if (text[i] !== '#') return;
      while (i < text.length && text[i] !== '\n') i++;
    }
  };
  const string = (): string => {
    i++;
    let out = '';
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        const c = text[i + 1] ?? '';
        out += c === 'n' ? '\n' : c === 't' ? '\t' : c;
        i += 2;
      } else out += text[i++] ?? '';
    }
    if (text[i] !== '"') fail('unterminated string');
    i++;
    return out;
  };
  const word = (): string => {
    const m = /^[A-Za-z_][A-Za-z0-9_@]*[?!]?/.exec(text.slice(i, i + 256));
    if (m === null) return fail('unexpected character');
    i += m[0].length;
    return m[0];
  };
  /** `key: value` pairs (keyword syntax) start with a word or string directly followed by `: `. */
  const keywordKey = (): string | null => {
    const m = /^(?:([A-Za-z_][A-Za-z0-9_@]*[?!]?)|"((?:[^"\\]|\\.)*)"):(?=\s)/.exec(text.slice(i, i + 512));
    if (m === null) return null;
    i += m[0].length;
    return m[1] ?? m[2] ?? '';
  };
  const items = (close: string, depth: number, pairs: boolean): Term[] | [Term, Term][] => {
    const out: (Term | [Term, Term])[] = [];
    space();
    while (text[i] !== close) {
      if (i >= text.length) fail(`missing ${close}`);
      const key = keywordKey();
      if (key !== null) {
        space();
        const v = value(depth + 1);
        out.push(pairs ? [{ atom: key }, v] : { tuple: [{ atom: key }, v] });
      } else {
        const v = value(depth + 1);
        space();
        if (pairs) {
          if (text.slice(i, i + 2) !== '=>') fail('expected =>');
          i += 2;
          space();
          out.push([v, value(depth + 1)]);
        } else out.push(v);
      }
      space();
      if (text[i] === ',') {
        i++;
        space();
      } else if (text[i] !== close) fail(`expected , or ${close}`);
    }
    i++;
    return out;
  };
  const value = (depth: number): Term => {
    if (depth > MAX_DEPTH) fail('nested too deeply');
    space();
    const c = text[i];
    if (c === '%' && text[i + 1] === '{') {
      i += 2;
      return { map: items('}', depth, true) as [Term, Term][] };
    }
    if (c === '{') {
      i++;
      return { tuple: items('}', depth, false) as Term[] };
    }
    if (c === '[') {
      i++;
      return items(']', depth, false);
    }
    if (c === '"') return string();
    if (c === ':') {
      i++;
      return { atom: text[i] === '"' ? string() : word() };
    }
    const num = /^-?\d[\d_]*(\.\d+)?/.exec(text.slice(i, i + 64));
    if (num !== null) {
      i += num[0].length;
      return Number(num[0].replace(/_/g, ''));
    }
    const w = word();
    if (w === 'true') return true;
    if (w === 'false') return false;
    if (w === 'nil') return null;
    return fail(`unexpected ${w}`);
  };
  const result = value(0);
  space();
  if (i < text.length) fail('unexpected text after the term');
  return result;
}
