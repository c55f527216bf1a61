import type { ListIdentityType, ListResponseType } from '../schemas.js';
import type { InventoryRow } from '../../../inventory/store/records.js';
import type { ListTarget } from '../../../inventory/targets.js';

/** The response fields a target kind decides; the orchestrator adds entries and paging. */
export type KindFields = Omit<ListResponseType, 'inventory_kind' | 'requested_target' | 'canonical_target' | 'entries' | 'has_more' | 'next_cursor'>;

/** What a request resolved to: the inventory to page (if it can be listed) and how to describe it. */
export interface ServedView {
  readonly inventoryKind: 'source' | 'site';
  /** The inventory whose entries are listed; null while nothing can be listed yet. */
  readonly row: InventoryRow | null;
  readonly canonicalTarget: string | null;
  /** Target of read and browse actions: the exact served snapshot. */
  readonly actionTarget: string;
  readonly served: ListIdentityType | null;
  readonly fields: KindFields;
  /** Whether the whole page may be cached under `stamp` (its fields depend on nothing else). */
  readonly cacheable: boolean;
  /** Changes whenever the kind's fields would (e.g. the indexed-versions list was refreshed). */
  readonly stamp: string;
  /** Version of the listed inventory's entries: '' for immutable snapshots, changes as a crawl stores pages. */
  readonly generation: string;
  /**
   * What a continuation needs to repeat this page's evidence (opaque to all but the lister; the
   * signed cursor carries it), e.g. the commit a moved branch resolved to; null when the served
   * inventory alone says it.
   */
  readonly pin: string | null;
}

/** The view a read is served from: always with an inventory. */
export type ServedInventory = ServedView & { readonly row: InventoryRow; readonly served: ListIdentityType };

/** One target kind's resolution rules. */
export interface Lister<T extends ListTarget> {
  /** Resolves a request (starting preparation as needed, waiting up to `waitMs`). */
  resolve(target: T, waitMs: number): Promise<ServedView>;
  /** The view of an inventory a cursor pinned, with the evidence page one had (`pin`). */
  view(target: T, row: InventoryRow, pin: string | null): Promise<ServedView>;
  /** The view a read is served from; throws 409s for targets that cannot be read yet. */
  readable(target: T): Promise<ServedInventory>;
}
