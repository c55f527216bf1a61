import type { Component, LicenseKind, Sbom } from './document.js';

/** Counts, paths and orderings over a read document: pure functions the views call. */

export interface Slice {
  readonly label: string;
  readonly count: number;
  readonly kind: LicenseKind | 'other' | null;
}

/** The `limit` largest groups by count (then label), the rest folded into one "other" slice. */
export function breakdown(components: readonly Component[], key: (c: Component) => string, limit = 10, kindOf?: (c: Component) => LicenseKind): Slice[] {
  const counts = new Map<string, { count: number; kind: LicenseKind | null }>();
  for (const c of components) {
    const label = key(c);
    const entry = counts.get(label);
    if (entry) entry.count += 1;
    else counts.set(label, { count: 1, kind: kindOf ? kindOf(c) : null });
  }
  const sorted = [...counts.entries()].map(([label, v]) => ({ label, count: v.count, kind: v.kind })).sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
  if (sorted.length <= limit) return sorted;
  const rest = sorted.slice(limit - 1);
  return [...sorted.slice(0, limit - 1), { label: `${rest.length} others`, count: rest.reduce((n, s) => n + s.count, 0), kind: 'other' }];
}

export function licenseKindCounts(components: readonly Component[]): Record<LicenseKind, number> {
  const counts: Record<LicenseKind, number> = { expression: 0, 'spdx-id': 0, named: 0, unknown: 0 };
  for (const c of components) counts[c.license.kind] += 1;
  return counts;
}

export type SortKey = 'name' | 'version' | 'ecosystem' | 'scope' | 'license';

const SORT_VALUE: Readonly<Record<SortKey, (c: Component) => string>> = {
  name: (c) => c.name,
  version: (c) => c.version,
  ecosystem: (c) => c.ecosystem,
  scope: (c) => c.scope,
  license: (c) => c.license.label,
};

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Filtered by every word of `text` (name, version, purl, license, ecosystem, scope), then sorted stably. */
export function filterAndSort(components: readonly Component[], text: string, key: SortKey, descending: boolean): Component[] {
  const words = text.toLowerCase().split(/\s+/).filter((w) => w !== '');
  const haystack = (c: Component): string => `${c.name} ${c.version} ${c.purl ?? ''} ${c.license.label} ${c.ecosystem} ${c.scope}`.toLowerCase();
  const kept = words.length === 0 ? [...components] : components.filter((c) => {
    const h = haystack(c);
    return words.every((w) => h.includes(w));
  });
  const value = SORT_VALUE[key];
  const sign = descending ? -1 : 1;
  return kept.sort((a, b) => sign * collator.compare(value(a), value(b)) || sign * collator.compare(a.name, b.name) || a.index - b.index);
}

/** The project roots: the document's subject and every other application component. */
export function rootsOf(sbom: Sbom): string[] {
  const roots = sbom.subject ? [sbom.subject.ref] : [];
  for (const c of sbom.components) if (c.type === 'application' && !roots.includes(c.ref)) roots.push(c.ref);
  return roots;
}

/**
 * Why a component is in the inventory: up to `max` shortest paths to it from the roots through
 * the `dependencies` graph (breadth-first from all roots at once, keeping every predecessor at
 * the shortest distance, then walking back). Empty when nothing leads to it.
 */
export function pathsTo(sbom: Sbom, target: string, max = 5): string[][] {
  const roots = rootsOf(sbom);
  if (roots.includes(target)) return [[target]];
  const depth = new Map<string, number>();
  const parents = new Map<string, string[]>();
  let frontier = roots.filter((r) => sbom.byRef.has(r) || sbom.dependsOn.has(r));
  for (const r of frontier) depth.set(r, 0);
  let level = 0;
  while (frontier.length > 0 && !depth.has(target)) {
    const next: string[] = [];
    level += 1;
    for (const ref of frontier) {
      for (const child of sbom.dependsOn.get(ref) ?? []) {
        const seen = depth.get(child);
        if (seen === undefined) {
          depth.set(child, level);
          parents.set(child, [ref]);
          next.push(child);
        } else if (seen === level) parents.get(child)?.push(ref);
      }
    }
    frontier = next;
  }
  if (!depth.has(target)) return [];
  const paths: string[][] = [];
  const walk = (ref: string, suffix: string[]): void => {
    if (paths.length >= max) return;
    const path = [ref, ...suffix];
    if (depth.get(ref) === 0) {
      paths.push(path);
      return;
    }
    for (const parent of parents.get(ref) ?? []) walk(parent, path);
  };
  walk(target, []);
  return paths;
}

/** The components that depend on `target` directly. */
export function dependentsOf(sbom: Sbom, target: string): string[] {
  const out: string[] = [];
  for (const [ref, children] of sbom.dependsOn) if (children.includes(target)) out.push(ref);
  return out;
}
