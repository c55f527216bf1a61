import { replacement, type Replacement } from './parse-go-mod.js';
import { GoFileError, readStatements, word } from './syntax.js';

/**
 * go.work (https://go.dev/ref/mod#go-work-file): go, toolchain, godebug, use (directories, single
 * or in blocks) and replace. Unknown directives are kept by name and ignored, as in go.mod.
 */

export interface GoWork {
  readonly go: string | null;
  readonly toolchain: string | null;
  /** The `use` directories as written (relative to the go.work's directory). */
  readonly use: readonly string[];
  readonly replaces: readonly Replacement[];
  readonly unknown: readonly string[];
}

export function parseGoWork(text: string): GoWork {
  let go: string | null = null;
  let toolchain: string | null = null;
  const use: string[] = [];
  const replaces: Replacement[] = [];
  const unknown = new Set<string>();
  for (const s of readStatements(text)) {
    const only = s.args.length === 1 ? word(s.args[0]) : null;
    const need = (): string => {
      if (only === null || only === '') throw new GoFileError('malformed', `${s.verb}: expects exactly one argument`, s.line, s.column);
      return only;
    };
    switch (s.verb) {
      case 'go':
        go = need();
        break;
      case 'toolchain':
        toolchain = need();
        break;
      case 'godebug':
        need();
        break;
      case 'use':
        use.push(need());
        break;
      case 'replace':
        replaces.push(replacement(s));
        break;
      default:
        unknown.add(s.verb.slice(0, 64));
    }
  }
  return { go, toolchain, use, replaces, unknown: [...unknown] };
}
