import type { Inventory, Occurrence } from '../model/model.js';

/**
 * Manifests in one folder are one project, whatever their ecosystems: a Gemfile beside a
 * package.json is the same application's. Each ecosystem makes the root of what it read there,
 * named by its own manifest when that names the project, else by the folder (or a word such as
 * `project`); this joins a folder's roots into one, named by whichever manifest names it, with
 * every root's edges. Two manifests that name the folder differently stay two roots (the upload
 * does not say which name is the project's).
 */

const FALLBACK_NAMES = new Set(['project', 'package', 'Podfile', 'workspace']);

function folderOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut === -1 ? '' : path.slice(0, cut);
}

/** Whether a root's name is only the folder's (or a stand-in word): no manifest named the project. */
function unnamed(o: Occurrence, folder: string): boolean {
  return FALLBACK_NAMES.has(o.name) || o.name === folder.slice(folder.lastIndexOf('/') + 1);
}

export function oneProjectPerFolder(inventory: Inventory): void {
  const roots = new Set(inventory.roots);
  const byFolder = new Map<string, Occurrence[]>();
  for (const o of inventory.occurrences) {
    if (!roots.has(o.ref) || o.source !== 'root' || o.installPath !== '') continue;
    const folder = folderOf(o.lockfile);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), o]);
  }
  const merged = new Map<string, Occurrence>();
  for (const [folder, tops] of byFolder) {
    if (tops.length < 2) continue;
    // The project's name comes from a manifest that gives one (with a version, the surer), else the first.
    const rank = (o: Occurrence): number => (unnamed(o, folder) ? 0 : 2) + (o.version === null ? 0 : 1);
    const keeper = tops.reduce((best, o) => (rank(o) > rank(best) ? o : best));
    for (const o of tops) {
      if (o === keeper || (!unnamed(o, folder) && o.name !== keeper.name)) continue;
      const targets = new Set(keeper.dependencies.map((e) => e.ref));
      for (const e of o.dependencies) if (!targets.has(e.ref) && e.ref !== keeper.ref) keeper.dependencies.push(e);
      merged.set(o.ref, keeper);
    }
  }
  if (merged.size === 0) return;
  const kept = inventory.occurrences.filter((o) => !merged.has(o.ref));
  for (const o of kept) o.dependencies = o.dependencies.map((e) => (merged.has(e.ref) ? { ...e, ref: merged.get(e.ref)?.ref ?? e.ref } : e));
  inventory.occurrences.splice(0, inventory.occurrences.length, ...kept);
  const keptRoots = inventory.roots.filter((r) => !merged.has(r));
  inventory.roots.splice(0, inventory.roots.length, ...keptRoots);
}
