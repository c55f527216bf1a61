import { listOf, MAX_CONTINUATION_LINES, rubyArgs, rubyValue, stripComment, unbalanced } from './ruby-text.js';

/**
 * A `*.gemspec` read as text, never run: the gem's `name`, its `version` when a literal (a
 * constant such as `Devise::VERSION` is not known without running Ruby: null), `license(s)`, and
 * its `add_dependency`/`add_runtime_dependency` (runtime) and `add_development_dependency`
 * requirements.
 */

export interface GemspecDependency {
  readonly name: string;
  readonly requirements: readonly string[];
  readonly kind: 'runtime' | 'development';
}

export interface Gemspec {
  readonly name: string | null;
  readonly version: string | null;
  /** Several licenses are alternatives (see registry.ts): joined with OR. */
  readonly license: string | null;
  readonly dependencies: readonly GemspecDependency[];
}

/** `(A OR B)` for several licenses (RubyGems' `licenses` lists alternatives, as Ruby's own `Ruby OR BSD-2-Clause`). */
export function licenseExpression(licenses: readonly string[]): string | null {
  const list = licenses.map((l) => l.trim()).filter((l) => l !== '');
  if (list.length === 0) return null;
  return list.length === 1 ? (list[0] ?? null) : `(${list.join(' OR ')})`;
}

const ATTRIBUTE = /^\w+\.(name|version|license|licenses)\s*=\s*(.+)$/s;
const DEPENDENCY = /^\w+\.(add_dependency|add_runtime_dependency|add_development_dependency)\b\s*(.*)$/s;

export function readGemspec(content: string): Gemspec {
  let name: string | null = null;
  let version: string | null = null;
  let license: string | null = null;
  const dependencies: GemspecDependency[] = [];
  let pending = '';
  let continued = 0;
  for (const raw of content.split(/\r?\n/)) {
    const text = `${pending} ${stripComment(raw).trim()}`.trim();
    if (continued < MAX_CONTINUATION_LINES && (/,$/.test(text) || unbalanced(text))) {
      pending = text;
      continued++;
      continue;
    }
    pending = '';
    continued = 0;
    const attribute = ATTRIBUTE.exec(text);
    if (attribute?.[1]) {
      const value = rubyValue(attribute[2] ?? '');
      if (attribute[1] === 'name' && typeof value === 'string') name = value;
      if (attribute[1] === 'version') version = typeof value === 'string' && /^\d[\w.]*$/.test(value) ? value : null;
      if (attribute[1] === 'license' || attribute[1] === 'licenses') license = licenseExpression(listOf(value));
      continue;
    }
    const dependency = DEPENDENCY.exec(text);
    if (dependency?.[1]) {
      const args = rubyArgs(dependency[2] ?? '');
      const dep = args.positional[0];
      if (typeof dep !== 'string' || !/^[\w.-]+$/.test(dep)) continue;
      dependencies.push({
        name: dep,
        requirements: args.positional.slice(1).flatMap((r) => listOf(r)),
        kind: dependency[1] === 'add_development_dependency' ? 'development' : 'runtime',
      });
    }
  }
  return { name, version, license, dependencies };
}
