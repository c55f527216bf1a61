/**
 * `mix.exs` read as text, never run (it is an Elixir program): the project's literal `app:` and
 * `version:`, and each dependency tuple `{:app, "requirement", opts}` or `{:app, opts}` with the
 * literal options that matter here — `only:` (`:dev`, `:test`, `[:dev, :test]`: development
 * only), `optional: true`, `path:` (a local project), `git:`/`github:`. Options computed from
 * code (`runtime: Mix.env() == :dev`) are not guessed.
 *
 * Only what the project's `deps:` option gives declares dependencies (Mix reads nothing else): its
 * expression, and the bodies of the module's own functions it calls (`deps()`, `target_deps(…)`,
 * and the functions those call). Tuples elsewhere — `plt_file: {:no_warn, "…"}` among the
 * `dialyzer:` options, `@compile {:no_warn_undefined, X}` — are not dependencies.
 */

export interface MixDependency {
  readonly app: string;
  readonly requirement: string;
  readonly devOnly: boolean;
  readonly optional: boolean;
  readonly local: boolean;
}

export interface MixProject {
  readonly app: string | null;
  readonly version: string | null;
  readonly dependencies: readonly MixDependency[];
}

const DEP = /\{\s*:([a-z_][a-z0-9_]*)\s*,\s*(?:"([^"]*)"\s*,?\s*)?([^{}]*)\}/g;
/** More functions than a mix.exs holds: the walk over the ones `deps:` reaches stops there. */
const MAX_FUNCTIONS = 200;

/**
 * The text twice, both the same length as it: `clean` without comments, `masked` also without
 * the contents of strings and charlists (quotes kept), so brackets, `do`/`end` and names are found
 * in code only.
 */
function blank(text: string): { clean: string; masked: string } {
  const clean: string[] = [];
  const masked: string[] = [];
  let i = 0;
  const keep = (c: string, m: string = c): void => {
    clean.push(c);
    masked.push(m);
  };
  while (i < text.length) {
    const c = text[i] ?? '';
    if (c === '#') {
      while (i < text.length && text[i] !== '\n') {
        keep(' ');
        i++;
      }
      continue;
    }
    if (c === '"' || c === "'") {
      const triple = text.startsWith(c.repeat(3), i);
      const close = triple ? c.repeat(3) : c;
      for (const q of close) keep(q);
      i += close.length;
      while (i < text.length && !text.startsWith(close, i)) {
        const ch = text[i] ?? '';
        if (ch === '\\' && i + 1 < text.length) {
          keep(ch, ' ');
          keep(text[i + 1] ?? '', text[i + 1] === '\n' ? '\n' : ' ');
          i += 2;
          continue;
        }
        keep(ch, ch === '\n' ? '\n' : ' ');
        i++;
      }
      for (const q of close) if (i < text.length) keep(q);
      i += close.length;
      continue;
    }
    keep(c);
    i++;
  }
  return { clean: clean.join(''), masked: masked.join('') };
}

const OPEN = new Set(['(', '[', '{']);
const CLOSE = new Set([')', ']', '}']);
const WORD = /[A-Za-z0-9_?!]/;

/** A block keyword (`do`, `fn`, `end`) at `i` of the masked text: a whole word, `do:` excluded. */
function keywordAt(masked: string, i: number, word: string): boolean {
  if (!masked.startsWith(word, i)) return false;
  const before = masked[i - 1] ?? ' ';
  const after = masked[i + word.length] ?? ' ';
  return !WORD.test(before) && before !== ':' && before !== '.' && !WORD.test(after) && after !== ':';
}

/** End of an expression starting at `from`: the first `,`, closing bracket or `end` at its own depth. */
function expressionEnd(masked: string, from: number, stopAtNewline: boolean): number {
  let depth = 0;
  let seen = false;
  for (let i = from; i < masked.length; i++) {
    const c = masked[i] ?? '';
    if (OPEN.has(c) || keywordAt(masked, i, 'do') || keywordAt(masked, i, 'fn')) depth++;
    else if (CLOSE.has(c) || keywordAt(masked, i, 'end')) {
      if (depth === 0) return i;
      depth--;
    } else if (depth === 0 && (c === ',' || (stopAtNewline && c === '\n' && seen))) return i;
    if (!/\s/.test(c)) seen = true;
  }
  return masked.length;
}

/** End of a `do … end` block whose `do` ends at `from`: just before its matching `end`. */
function blockEnd(masked: string, from: number): number {
  let depth = 1;
  for (let i = from; i < masked.length; i++) {
    if (keywordAt(masked, i, 'do') || keywordAt(masked, i, 'fn')) depth++;
    else if (keywordAt(masked, i, 'end') && --depth === 0) return i;
  }
  return masked.length;
}

/** Spans of every clause body of the module's function `name` (`def`/`defp`, block or `, do:` form). */
function functionBodies(masked: string, name: string): [number, number][] {
  const spans: [number, number][] = [];
  const escaped = name.replace(/[?!]/g, '\\$&');
  const head = new RegExp(`\\bdefp?\\s+${escaped}(?![A-Za-z0-9_?!])`, 'g');
  for (const m of masked.matchAll(head)) {
    // The head's arguments and guard, then `do` (a block) or `, do:` (one expression).
    let i = m.index + m[0].length;
    let depth = 0;
    for (; i < masked.length; i++) {
      const c = masked[i] ?? '';
      if (OPEN.has(c)) depth++;
      else if (CLOSE.has(c)) depth--;
      else if (depth === 0 && (keywordAt(masked, i, 'do') || masked.startsWith('do:', i))) break;
    }
    if (masked.startsWith('do:', i)) spans.push([i + 3, expressionEnd(masked, i + 3, true)]);
    else if (i < masked.length) spans.push([i + 2, blockEnd(masked, i + 2)]);
  }
  return spans;
}

/** The spans of code that declare dependencies: the `deps:` expression and the local functions it reaches. */
function dependencySpans(masked: string): [number, number][] {
  const option = /(?<![A-Za-z0-9_])deps:\s/.exec(masked);
  if (option === null) return [];
  const start = option.index + option[0].length;
  const spans: [number, number][] = [[start, expressionEnd(masked, start, false)]];
  const visited = new Set<string>();
  for (let s = 0; s < spans.length && visited.size < MAX_FUNCTIONS; s++) {
    const [from, to] = spans[s] ?? [0, 0];
    // Local calls (`deps()`, `deps`, `target_deps(Mix.target())`), not remote ones (`Mix.target`).
    for (const call of masked.slice(from, to).matchAll(/(?<![A-Za-z0-9_?!.:@&])([a-z_][A-Za-z0-9_]*[?!]?)/g)) {
      const name = call[1] ?? '';
      if (visited.has(name)) continue;
      visited.add(name);
      for (const body of functionBodies(masked, name)) spans.push(body);
    }
  }
  return spans;
}

export function readMixExs(text: string): MixProject {
  const { clean, masked } = blank(text);
  const app = /\bapp:\s*:([a-z_][a-z0-9_]*)/.exec(clean)?.[1] ?? null;
  // `version: @version` names the module attribute that holds it (`@version "0.20.0"`).
  const attribute = /\bversion:\s*@([a-z_][a-z0-9_]*)/.exec(clean)?.[1];
  const version =
    (attribute === undefined ? undefined : new RegExp(`^\\s*@${attribute}\\s+"([^"]+)"`, 'm').exec(clean)?.[1]) ?? /\bversion:\s*"([^"]+)"/.exec(clean)?.[1] ?? null;
  const dependencies: MixDependency[] = [];
  const seen = new Set<string>();
  for (const [from, to] of dependencySpans(masked)) {
    for (const m of clean.slice(from, to).matchAll(DEP)) {
      const name = m[1] ?? '';
      const opts = m[3] ?? '';
      const requirement = m[2];
      // A dependency states a requirement or a source; other `{:atom, …}` tuples are not dependencies.
      if (requirement === undefined && !/\b(git|github|path|hex|in_umbrella):/.test(opts)) continue;
      if (name === app || seen.has(name)) continue;
      seen.add(name);
      const only = /\bonly:\s*(\[[^\]]*\]|:[a-z_]+)/.exec(opts)?.[1] ?? null;
      const envs = only === null ? [] : [...only.matchAll(/:([a-z_]+)/g)].map((e) => e[1] ?? '');
      dependencies.push({
        app: name,
        requirement: requirement ?? (/\b(git|github|path):\s*"([^"]+)"/.exec(opts)?.slice(1, 3).join(': ') ?? ''),
        devOnly: envs.length > 0 && envs.every((e) => e === 'dev' || e === 'test' || e === 'docs' || e === 'bench'),
        optional: /\boptional:\s*true\b/.test(opts),
        local: /\b(path:|in_umbrella:\s*true)/.test(opts),
      });
    }
  }
  return { app, version, dependencies };
}
