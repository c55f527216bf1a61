import { listOf, MAX_CONTINUATION_LINES, rubyArgs, stripComment, unbalanced } from './ruby-text.js';

/**
 * A Gemfile (or `gems.rb`) read as text, never run: its `gem` lines with their requirements,
 * groups (from `group … do` blocks and `group:`/`groups:` options, unioned as Bundler does),
 * local or git sources, the `gemspec` directives and `eval_gemfile` references. Blocks that are
 * not groups (`platforms`, `source … do`, `git … do`, `path … do`, `install_if`, `if`) are
 * followed only so their `end` closes the right block.
 */

export interface GemfileGem {
  readonly name: string;
  /** Requirements as written (`~> 1.0`, `>= 2`); empty when none. */
  readonly requirements: readonly string[];
  /** Bundler groups; `default` when none is stated. */
  readonly groups: readonly string[];
  /** `path:`/`git:`/`github:` (or an enclosing `path`/`git` block): not from a gem server. */
  readonly from: string | null;
  readonly line: number;
}

export interface GemspecDirective {
  /** The folder of the gemspec, relative to the Gemfile (`path:`, default `.`). */
  readonly path: string;
  readonly name: string | null;
  /** The group its development dependencies join (`development_group:`, default `development`). */
  readonly developmentGroup: string;
}

export interface Gemfile {
  readonly gems: readonly GemfileGem[];
  readonly gemspecs: readonly GemspecDirective[];
  /** Paths given to `eval_gemfile`, relative to the Gemfile. */
  readonly evals: readonly string[];
}

interface Block {
  readonly groups: readonly string[];
  readonly from: string | null;
}

/** Groups whose gems do not ship: Bundler's conventions for development and tests. */
export const DEV_GROUPS: ReadonlySet<string> = new Set(['development', 'test']);

/** A gem stated only in development/test groups is a development dependency. */
export function isDevOnly(groups: readonly string[]): boolean {
  return groups.length > 0 && groups.every((g) => DEV_GROUPS.has(g));
}

const OPENS_BLOCK = /(\bdo\s*(\|[^|]*\|)?|^(if|unless|case|begin|while|until|def|class|module)\b.*)$/;

/** Logical statements: a call continued over lines (open brackets, trailing comma or backslash) is joined. */
function statements(content: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let pending: { text: string; line: number } | null = null;
  const lines = content.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const text = stripComment(lines[i] ?? '').trim();
    if (pending === null && text === '') continue;
    const current: { text: string; line: number } = pending === null ? { text, line: i + 1 } : { text: `${pending.text} ${text}`, line: pending.line };
    if (i + 1 - current.line < MAX_CONTINUATION_LINES && (/[,\\]$/.test(current.text) || unbalanced(current.text))) {
      pending = { text: current.text.replace(/\\$/, ''), line: current.line };
      continue;
    }
    pending = null;
    out.push(current);
  }
  if (pending !== null) out.push(pending);
  return out;
}

/** `rest` up to a trailing ` if …`/` unless …` modifier outside string literals. */
function withoutModifier(rest: string): string {
  let quote: string | null = null;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (quote !== null) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (/\s/.test(c ?? '') && /^\s(if|unless)\s/.test(rest.slice(i, i + 8))) return rest.slice(0, i);
  }
  return rest;
}

export function readGemfile(content: string): Gemfile {
  const gems: GemfileGem[] = [];
  const gemspecs: GemspecDirective[] = [];
  const evals: string[] = [];
  const stack: Block[] = [];
  const top = (): Block => stack[stack.length - 1] ?? { groups: [], from: null };

  for (const { text, line } of statements(content)) {
    if (/^end\b/.test(text) || text === '}') {
      stack.pop();
      continue;
    }
    const call = /^(\w+)\b\s*(.*)$/s.exec(text);
    const method = call?.[1] ?? '';
    let rest = call?.[2] ?? '';
    const opensBlock = OPENS_BLOCK.test(text) && !/\bend$/.test(text);
    if (opensBlock) rest = rest.replace(/\s*\bdo\s*(\|[^|]*\|)?$/, '');
    // A trailing modifier (`gem "x" if RUBY_VERSION >= "3"`) still declares the gem.
    else rest = withoutModifier(rest);
    const args = rubyArgs(rest);
    switch (method) {
      case 'gem': {
        const name = args.positional[0];
        // RubyGems names are letters, digits, `_`, `-` and `.`: anything else is not a literal name.
        if (typeof name !== 'string' || !/^[\w.-]+$/.test(name)) break;
        const requirements = args.positional.slice(1).flatMap((r) => listOf(r));
        const own = [...listOf(args.options['group']), ...listOf(args.options['groups'])];
        const groups = [...new Set([...top().groups, ...own])];
        const local = ['path', 'git', 'github', 'gist', 'bitbucket'].find((k) => args.options[k] !== undefined);
        gems.push({ name, requirements, groups: groups.length === 0 ? ['default'] : groups, from: local ?? top().from, line });
        break;
      }
      case 'gemspec': {
        const path = args.options['path'];
        const name = args.options['name'];
        const dev = args.options['development_group'];
        gemspecs.push({ path: typeof path === 'string' ? path : '.', name: typeof name === 'string' ? name : null, developmentGroup: typeof dev === 'string' ? dev : 'development' });
        break;
      }
      case 'eval_gemfile': {
        const path = args.positional[0];
        if (typeof path === 'string') evals.push(path);
        break;
      }
    }
    if (opensBlock) {
      if (method === 'group') {
        const groups = args.positional.flatMap((g) => listOf(g));
        stack.push({ groups: [...new Set([...top().groups, ...groups])], from: top().from });
      } else if (method === 'path' || method === 'git' || method === 'github') {
        stack.push({ groups: top().groups, from: method });
      } else {
        stack.push(top());
      }
    }
  }
  return { gems, gemspecs, evals };
}
