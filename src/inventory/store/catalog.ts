import { LRUCache } from 'lru-cache';
import { InventoryIndex } from '../query/query.js';
import type { InventoryStore } from './store.js';

interface Loaded {
  readonly generation: string;
  readonly index: InventoryIndex;
}

interface Loading {
  readonly generation: string;
  readonly index: Promise<InventoryIndex>;
}

/** Bytes of indexes a catalog holds unless told otherwise. */
export const DEFAULT_CATALOG_MAX_BYTES = 256 * 1024 * 1024;

/**
 * Inventory indexes held in memory (least recently used first out, bounded by the bytes they
 * hold: an entry's count says little when one path can be kilobytes), so listing needs no query
 * per page. An index larger than the whole bound is built for its request and not kept. A ready
 * source snapshot never changes (generation ''); a site's entries change as a crawl stores pages,
 * and its generation with them: asking for a newer generation reloads the index and drops the
 * older one.
 */
export class InventoryCatalog {
  private readonly loaded: LRUCache<string, Loaded>;
  /** Loads in flight, so concurrent requests for one inventory share one query and one build. */
  private readonly loading = new Map<string, Loading>();

  constructor(
    private readonly store: InventoryStore,
    maxBytes = DEFAULT_CATALOG_MAX_BYTES,
  ) {
    this.loaded = new LRUCache<string, Loaded>({ maxSize: maxBytes, sizeCalculation: (slot) => Math.max(1, slot.index.bytes) });
  }

  index(inventoryId: string, generation = ''): Promise<InventoryIndex> {
    const cached = this.loaded.get(inventoryId);
    if (cached?.generation === generation) return Promise.resolve(cached.index);
    const pending = this.loading.get(inventoryId);
    if (pending?.generation === generation) return pending.index;
    if (cached) this.loaded.delete(inventoryId);
    const slot: Loading = {
      generation,
      index: this.store.entries(inventoryId).then((entries) => {
        const index = new InventoryIndex(entries);
        // Kept unless forgotten or superseded meanwhile; one over the whole bound is not kept.
        if (this.loading.get(inventoryId) === slot) this.loaded.set(inventoryId, { generation, index });
        return index;
      }),
    };
    this.loading.set(inventoryId, slot);
    const settle = (): void => {
      if (this.loading.get(inventoryId) === slot) this.loading.delete(inventoryId);
    };
    slot.index.then(settle, settle);
    return slot.index;
  }

  /** Bytes the kept indexes hold (their estimate). */
  get bytes(): number {
    return this.loaded.calculatedSize;
  }

  forget(inventoryId: string): void {
    this.loaded.delete(inventoryId);
    this.loading.delete(inventoryId);
  }
}
