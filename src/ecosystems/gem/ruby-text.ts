/**
 * Just enough of Ruby's literal syntax to read Gemfiles and gemspecs as text (they are Ruby
 * programs and are never run): call arguments split at top-level commas, string and symbol
 * literals, arrays (`[...]`, `%w[...]`, `%i[...]`) and keyword options (`key: v`, `:key => v`,
 * `"key" => v`). Anything computed (a constant, a method call) reads as null: the caller decides
 * what an unknown value means. No Ruby parser exists for Node that fits; this is the subset the
 * DSLs use.
 */

export type RubyValue = string | readonly string[] | boolean | null;

export interface RubyArgs {
  /** Positional literals in order (null where not a literal). */
  readonly positional: readonly RubyValue[];
  readonly options: Readonly<Record<string, RubyValue>>;
}

/**
 * Lines one call may continue over (open brackets, a trailing comma): beyond it the statement is
 * taken as complete, so an unclosed quote cannot make the reading quadratic.
 */
export const MAX_CONTINUATION_LINES = 64;

/** Strips a trailing `# comment` (outside string literals). */
export function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== null) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#') return line.slice(0, i);
  }
  return line;
}

/** Splits at commas outside quotes and brackets. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== null) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(' || c === '{') depth++;
    else if (c === ']' || c === ')' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = text.slice(start).trim();
  if (last !== '') parts.push(last);
  return parts;
}

/** Open brackets or quotes left at the end of `text` (a call continued on the next line). */
export function unbalanced(text: string): boolean {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== null) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(' || c === '{') depth++;
    else if (c === ']' || c === ')' || c === '}') depth--;
  }
  return depth > 0 || quote !== null;
}

/** A literal value; null when it is not one. */
export function rubyValue(text: string): RubyValue {
  const t = text.trim();
  const str = /^(["'])(.*)\1(?:\.freeze)?$/s.exec(t);
  if (str) return str[2] ?? '';
  // `%q<rails>.freeze`, as `gem build` writes generated gemspecs.
  const percent = /^%[qQ]?(?:<([^>]*)>|\(([^)]*)\)|\{([^}]*)\}|\[([^\]]*)\])(?:\.freeze)?$/.exec(t);
  if (percent) return percent[1] ?? percent[2] ?? percent[3] ?? percent[4] ?? '';
  const sym = /^:(\w+[?!]?)$/.exec(t) ?? /^:"([^"]*)"$/.exec(t);
  if (sym) return sym[1] ?? '';
  if (t === 'true') return true;
  if (t === 'false') return false;
  const words = /^%[wiWI]\s*[[({<](.*)[\])}>]$/s.exec(t);
  if (words) return (words[1] ?? '').split(/\s+/).filter((w) => w !== '');
  const array = /^\[(.*)\]$/s.exec(t);
  if (array) {
    const items = splitTopLevel(array[1] ?? '').map(rubyValue);
    return items.every((v): v is string => typeof v === 'string') ? items : null;
  }
  return null;
}

/** Values of an option or positional as a list of strings (a string alone is a list of one). */
export function listOf(value: RubyValue | undefined): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return [...(value as readonly string[])];
  return [];
}

/** The arguments of a call written `name arg, arg, key: v` or `name(arg, …)`. */
export function rubyArgs(text: string): RubyArgs {
  let t = text.trim();
  if (t.startsWith('(') && t.endsWith(')')) t = t.slice(1, -1);
  const positional: RubyValue[] = [];
  const options: Record<string, RubyValue> = {};
  for (const part of splitTopLevel(t)) {
    const keyword = /^(\w+):\s+(.*)$/s.exec(part) ?? /^(\w+):(["':[%].*)$/s.exec(part);
    const rocket = /^(?::(\w+)|["'](\w+)["'])\s*=>\s*(.*)$/s.exec(part);
    if (keyword?.[1]) options[keyword[1]] = rubyValue(keyword[2] ?? '');
    else if (rocket) options[rocket[1] ?? rocket[2] ?? ''] = rubyValue(rocket[3] ?? '');
    else positional.push(rubyValue(part));
  }
  return { positional, options };
}
