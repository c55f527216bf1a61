import { mergeInventory } from '../shared/builder.js';
import { emptyInventory, type Inventory, type Occurrence } from '../../model/model.js';
import { folderOf } from './data.js';
import { pep503 } from './names.js';

/** One requirements file, parsed on its own: its inventory and the files its `-r`/`-c` lines name. */
export interface RequirementsPart {
  readonly path: string;
  readonly inventory: Inventory;
  readonly includes: readonly string[];
}

/**
 * Requirements files that describe one environment, read as one: files joined by `-r`/`-c` (either
 * way, transitively) and files of one folder (pip-compile writes `requirements.txt` and
 * `requirements-dev.txt` side by side, the second constrained by the first, which it records only
 * in `# via -c` comments). Within such a set a name and version is one component, of the widest
 * scope: required when any non-dev file pins it (a file is dev by its name, `isDevRequirements`),
 * dev otherwise. It is attributed to the first file, in path order, that gives it that scope (the
 * file that makes it ship). An unpinned requirement of a name the set pins is satisfied by that pin
 * and is no declaration. Each file keeps its lockfile record, counting its own pins.
 */
export function joinRequirements(parts: readonly RequirementsPart[]): Inventory {
  const index = new Map(parts.map((p, i) => [p.path, i]));
  const parent = parts.map((_, i) => i);
  const find = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r] ?? r;
    parent[i] = r;
    return r;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const byFolder = new Map<string, number>();
  parts.forEach((p, i) => {
    const first = byFolder.get(folderOf(p.path));
    if (first === undefined) byFolder.set(folderOf(p.path), i);
    else union(first, i);
    for (const included of p.includes) {
      const j = index.get(included);
      if (j !== undefined) union(i, j);
    }
  });
  const groups = new Map<number, RequirementsPart[]>();
  parts.forEach((p, i) => {
    const root = find(i);
    const list = groups.get(root);
    if (list) list.push(p);
    else groups.set(root, [p]);
  });
  const out = emptyInventory();
  for (const group of groups.values()) mergeInventory(out, joinGroup(group));
  return out;
}

function joinGroup(group: readonly RequirementsPart[]): Inventory {
  const chosen = new Map<string, Occurrence>();
  for (const part of group) {
    for (const o of part.inventory.occurrences) {
      const key = `${pep503(o.name)}@${o.version ?? ''}`;
      const current = chosen.get(key);
      // A required pin wins over a dev one; among equals the first file's stays.
      if (current === undefined || (current.dev && !o.dev)) chosen.set(key, o);
    }
  }
  const pinnedNames = new Set([...chosen.values()].map((o) => pep503(o.name)));
  const out = emptyInventory();
  for (const o of chosen.values()) out.occurrences.push(o);
  for (const part of group) {
    for (const d of part.inventory.declarations) if (!pinnedNames.has(pep503(d.name))) out.declarations.push(d);
    for (const l of part.inventory.lockfiles) out.lockfiles.push(l);
    for (const n of part.inventory.notices) out.notices.push(n);
  }
  return out;
}
