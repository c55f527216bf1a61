import { InventoryIndex } from './query.js';
import type { InventoryStore } from './store.js';

/**
 * Ready inventories never change, so their indexes are kept in memory (least recently used
 * first out, bounded by the total number of entries) and listing needs no query per page.
 */
export class InventoryCatalog {
  private readonly indexes = new Map<string, Promise<InventoryIndex>>();
  private readonly sizes = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly store: InventoryStore,
    private readonly maxEntries = 1_000_000,
  ) {}

  index(inventoryId: string): Promise<InventoryIndex> {
    const cached = this.indexes.get(inventoryId);
    if (cached) {
      // Re-insert to mark it most recently used.
      this.indexes.delete(inventoryId);
      this.indexes.set(inventoryId, cached);
      return cached;
    }
    const loading = this.store.entries(inventoryId).then((entries) => {
      const index = new InventoryIndex(entries);
      this.sizes.set(inventoryId, index.size);
      this.total += index.size;
      this.evict(inventoryId);
      return index;
    });
    loading.catch(() => this.indexes.delete(inventoryId));
    this.indexes.set(inventoryId, loading);
    return loading;
  }

  private evict(keep: string): void {
    for (const id of this.indexes.keys()) {
      if (this.total <= this.maxEntries) return;
      if (id === keep) continue;
      this.indexes.delete(id);
      this.total -= this.sizes.get(id) ?? 0;
      this.sizes.delete(id);
    }
  }

  forget(inventoryId: string): void {
    this.indexes.delete(inventoryId);
    this.total -= this.sizes.get(inventoryId) ?? 0;
    this.sizes.delete(inventoryId);
  }
}
