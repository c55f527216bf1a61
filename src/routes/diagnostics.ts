import type { FileProblem } from '../model/types.js';

/** At most this many diagnostics are returned; the rest are counted in `truncated`. */
export const MAX_DIAGNOSTICS = 100;

// A type alias (not an interface), so that it is a JSON value of a problem's extension members.
export type Diagnostic = {
  readonly path: string;
  readonly reason: string;
  readonly message: string;
  readonly line: number | null;
  readonly column: number | null;
  readonly package: string | null;
};

/** Words for a problem that came without its own (the structural limits say which bound). */
function describeReason(p: FileProblem): string {
  const bound = p.limit === undefined ? '' : ` (limit ${p.limit})`;
  switch (p.reason) {
    case 'syntax':
      return 'does not parse';
    case 'unexpected_structure':
      return 'parses, but not into the structure its format has';
    case 'analysis_time_limit':
      return `its analysis took longer than allowed${bound}`;
    case 'analysis_memory_limit':
      return `its analysis needed more memory than allowed${bound}`;
    default:
      return `${p.reason.replace(/_/g, ' ')}${bound}`;
  }
}

/**
 * The `diagnostics` extension member of an analysis failure: per input file, what was wrong, in the
 * caller's own terms (paths they uploaded, packages they named); never a stack or an internal URL.
 */
export function diagnosticsOf(problems: readonly FileProblem[]): Diagnostic[] {
  return problems.slice(0, MAX_DIAGNOSTICS).map((p) => ({
    path: p.path,
    reason: p.reason,
    message: p.message ?? describeReason(p),
    line: p.line ?? null,
    column: p.column ?? null,
    package: p.package ?? null,
  }));
}
