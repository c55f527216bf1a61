import { isUtf8 } from 'node:buffer';
import type { InventoryCatalog } from '../inventory/store/catalog.js';
import type { StoredEntry } from '../inventory/query/query.js';
import { parseSelection, type Selection } from '../inventory/query/selection.js';
import type { PackageTarget } from '../inventory/targets.js';
import type { PackageFiles } from '../packages/changelog-seam.js';
import type { FilesDelta, VersionFiles } from '../packages/upgrade-review.js';
import { DIFF_MAX_BYTES } from './inventory/compare-service.js';
import type { ListService } from './inventory/list-service.js';
import type { ServedInventory } from './inventory/listing/types.js';
import type { ReadService } from './inventory/read-service.js';

/**
 * The files of package versions for the upgrade review and the changelog reader, from the
 * inventories listing and compare serve: the same preparation (started and awaited up to the
 * caller's wait), the same content-addressed indexes, so "changed" is exact, as in compare.
 */

function everything(target: PackageTarget): Selection {
  const parsed = parseSelection({ recursive: true, limit: 500 }, target);
  if (!parsed.ok) throw new Error(`the whole-tree selection was refused: ${parsed.detail}`);
  return parsed.selection;
}

const bytesOf = (entries: readonly StoredEntry[]): number => entries.reduce((sum, e) => sum + (e.byteSize ?? 0), 0);

export class InventoryVersionFiles implements VersionFiles {
  constructor(private readonly deps: { readonly list: ListService; readonly catalog: InventoryCatalog; readonly reader: ReadService }) {}

  private async entries(served: ServedInventory, target: PackageTarget): Promise<StoredEntry[]> {
    const index = await this.deps.catalog.index(served.row.id, served.generation);
    return index.selectedFiles(everything(target));
  }

  async delta(base: PackageTarget, head: PackageTarget, waitMs: number): Promise<FilesDelta> {
    const [older, newer] = await Promise.all([this.deps.list.servedAfter(base, waitMs), this.deps.list.servedAfter(head, waitMs)]);
    const [before, after] = await Promise.all([this.entries(older, base), this.entries(newer, head)]);
    const old = new Map(before.map((e) => [e.path, e]));
    const now = new Map(after.map((e) => [e.path, e]));
    const added = after.filter((e) => !old.has(e.path));
    const removed = before.filter((e) => !now.has(e.path));
    let unchanged = 0;
    const changed = { count: 0, bytesBefore: 0, bytesAfter: 0 };
    for (const e of after) {
      const was = old.get(e.path);
      if (was === undefined) continue;
      if (was.contentHash === e.contentHash && was.byteSize === e.byteSize) {
        unchanged++;
        continue;
      }
      changed.count++;
      changed.bytesBefore += was.byteSize ?? 0;
      changed.bytesAfter += e.byteSize ?? 0;
    }
    return {
      added: { count: added.length, bytes: bytesOf(added) },
      removed: { count: removed.length, bytes: bytesOf(removed) },
      changed,
      unchanged,
      before: { count: before.length, bytes: bytesOf(before) },
      after: { count: after.length, bytes: bytesOf(after) },
      base: older.actionTarget,
      head: newer.actionTarget,
    };
  }

  async files(target: PackageTarget, waitMs: number): Promise<PackageFiles> {
    const served = await this.deps.list.servedAfter(target, waitMs);
    const index = await this.deps.catalog.index(served.row.id, served.generation);
    return {
      target: served.actionTarget,
      paths: async () => (await index.selectedFiles(everything(target))).map((e) => ({ path: e.path, byteSize: e.byteSize })),
      text: async (path) => {
        const entry = index.get(path);
        if (entry === undefined || entry.contentHash === null || entry.lineCount === null || (entry.byteSize ?? 0) > DIFF_MAX_BYTES) return null;
        const bytes = await this.deps.reader.content(entry.contentHash);
        return bytes !== null && isUtf8(bytes) ? bytes.toString('utf8') : null;
      },
    };
  }
}
