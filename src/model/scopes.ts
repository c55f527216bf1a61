import type { Occurrence } from './model.js';

/**
 * Derives dev and optional for lockfiles that do not record them (yarn, pnpm 9, bun), from the
 * graph, by npm's rules: what only development dependencies lead to is dev; what only optional
 * ones lead to is optional. A package's peers count as what brought the package in; a project's
 * own peers and any optional peer install nothing by themselves.
 */
export function deriveScopes(occurrences: readonly Occurrence[], roots: readonly string[]): void {
  const byRef = new Map(occurrences.map((o) => [o.ref, o]));
  const reached = new Map<string, { required: boolean; optional: boolean }>();
  type Mode = 'required' | 'optional' | 'dev';
  const queue: [Occurrence, Mode][] = [];
  const visit = (o: Occurrence, mode: Mode): void => {
    const seen = reached.get(o.ref) ?? { required: false, optional: false };
    if (mode === 'required' && !seen.required) {
      seen.required = true;
      queue.push([o, mode]);
    } else if (mode === 'optional' && !seen.required && !seen.optional) {
      seen.optional = true;
      queue.push([o, mode]);
    } else if (mode === 'dev' && !reached.has(o.ref)) {
      queue.push([o, mode]);
    }
    reached.set(o.ref, seen);
  };
  const rootSet = new Set(roots);
  const rootMode: Record<Occurrence['dependencies'][number]['kind'], Mode | null> = {
    prod: 'required',
    optional: 'optional',
    dev: 'dev',
    peer: 'dev',
    peerOptional: null,
  };
  for (const ref of roots) {
    const root = byRef.get(ref);
    if (!root) continue;
    reached.set(ref, { required: true, optional: false });
    for (const edge of root.dependencies) {
      const target = byRef.get(edge.ref);
      const mode = rootMode[edge.kind];
      if (target && mode !== null && !rootSet.has(target.ref)) visit(target, mode);
    }
  }
  for (let next = 0; next < queue.length; next++) {
    const [o, mode] = queue[next] ?? [];
    if (!o || !mode) break;
    for (const edge of o.dependencies) {
      const target = byRef.get(edge.ref);
      if (!target || rootSet.has(target.ref) || edge.kind === 'peerOptional' || edge.kind === 'dev') continue;
      visit(target, mode === 'required' && edge.kind === 'optional' ? 'optional' : mode);
    }
  }
  for (const o of occurrences) {
    if (rootSet.has(o.ref)) continue;
    const seen = reached.get(o.ref);
    // Unreachable entries (stale or tooling-only) are treated as development-only.
    o.dev = o.dev || seen === undefined || (!seen.required && !seen.optional);
    o.optional = o.optional || (seen !== undefined && !seen.required && seen.optional);
  }
}
