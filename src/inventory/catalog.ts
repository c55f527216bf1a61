import { InventoryIndex } from './query.js';
import type { InventoryStore } from './store.js';

interface Loaded {
  readonly generation: string;
  readonly index: Promise<InventoryIndex>;
  size: number;
}

/**
 * Inventory indexes held in memory (least recently used first out, bounded by the total number
 * of entries), so listing needs no query per page. A ready source snapshot never changes
 * (generation ''); a site's entries change as a crawl stores pages, and its generation with
 * them: asking for a newer generation reloads the index and drops the older one.
 */
export class InventoryCatalog {
  private readonly loaded = new Map<string, Loaded>();
  private total = 0;

  constructor(
    private readonly store: InventoryStore,
    private readonly maxEntries = 1_000_000,
  ) {}

  index(inventoryId: string, generation = ''): Promise<InventoryIndex> {
    const cached = this.loaded.get(inventoryId);
    if (cached?.generation === generation) {
      // Re-insert to mark it most recently used.
      this.loaded.delete(inventoryId);
      this.loaded.set(inventoryId, cached);
      return cached.index;
    }
    if (cached) this.forget(inventoryId);
    const slot: Loaded = {
      generation,
      size: 0,
      index: this.store.entries(inventoryId).then((entries) => {
        const index = new InventoryIndex(entries);
        if (this.loaded.get(inventoryId) === slot) {
          slot.size = index.size;
          this.total += index.size;
          this.evict(inventoryId);
        }
        return index;
      }),
    };
    slot.index.catch(() => {
      if (this.loaded.get(inventoryId) === slot) this.loaded.delete(inventoryId);
    });
    this.loaded.set(inventoryId, slot);
    return slot.index;
  }

  private evict(keep: string): void {
    for (const id of this.loaded.keys()) {
      if (this.total <= this.maxEntries) return;
      if (id !== keep) this.forget(id);
    }
  }

  forget(inventoryId: string): void {
    const slot = this.loaded.get(inventoryId);
    if (!slot) return;
    this.loaded.delete(inventoryId);
    this.total -= slot.size;
  }
}
