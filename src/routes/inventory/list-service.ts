import { DomainError } from '../../errors.js';
import type { InventoryCatalog } from '../../inventory/store/catalog.js';
import type { CursorCodec } from '../../inventory/query/cursor.js';
import { JsonPage, PageCache } from './json-page.js';
import { toListEntry, type ReadyRows } from './listing/shared.js';
import type { Lister, ServedInventory, ServedView } from './listing/types.js';
import type { ListEntryType, ListResponseType } from './schemas.js';
import { SelectionKeys, type Selection } from '../../inventory/query/selection.js';
import type { InventoryStore } from '../../inventory/store/store.js';
import type { InventoryRow } from '../../inventory/store/records.js';
import type { ListTarget, PackageTarget, RepositoryTarget, SiteTarget } from '../../inventory/targets.js';

export interface ListQuery {
  readonly target: ListTarget;
  readonly selection: Selection;
  readonly after: string | null;
  readonly waitMs: number;
}

/** One lister per target kind. */
export interface Listers {
  readonly package: Lister<PackageTarget>;
  readonly repository: Lister<RepositoryTarget>;
  readonly site: Lister<SiteTarget>;
}

export interface ListServiceDeps {
  readonly store: InventoryStore;
  readonly catalog: InventoryCatalog;
  readonly cursors: CursorCodec;
  readonly listers: Listers;
  readonly ready: ReadyRows;
  /**
   * How long past `wait_timeout_ms` a resolution may take (registry lookups, ref listings, the
   * preparation's enqueue) before the request answers 504 `TIMEOUT`: the caller's wait is a bound
   * on the answer, not only on the wait for preparation. The work itself goes on.
   */
  readonly deadlineGraceMs: number;
}

/** A lister with its target applied. */
interface BoundLister {
  resolve(waitMs: number): Promise<ServedView>;
  view(row: InventoryRow, pin: string | null): Promise<ServedView>;
  readable(): Promise<ServedInventory>;
}

function bind<T extends ListTarget>(lister: Lister<T>, target: T, graceMs: number): BoundLister {
  return {
    resolve: (ms) => withinDeadline(lister.resolve(target, ms), ms + graceMs, target.text),
    view: (row, pin) => lister.view(target, row, pin),
    readable: () => lister.readable(target),
  };
}

/** `work`, or a 504 `TIMEOUT` once `ms` have passed; a later failure of `work` is dropped (it was answered). */
async function withinDeadline<T>(work: Promise<T>, ms: number, target: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DomainError('TIMEOUT', `${target} was not resolved within ${ms} ms; its preparation may go on, ask again later.`)), ms);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The spec's response body limit: a page over it is refused rather than cut. */
export const LIST_PAGE_LIMIT_BYTES = 2 * 1024 * 1024;

/**
 * `POST /v1/list` and the read side's resolution, for every target kind: the kind's lister
 * resolves the target to a view (what is served and how to describe it), this class pages
 * through the served inventory. Pages a view declares cacheable are kept serialised (with their
 * gzip form) under the view's stamp.
 */
export class ListService {
  private readonly pages: PageCache;
  private readonly selectionKeys = new SelectionKeys();
  private readonly building = new Map<string, Promise<JsonPage>>();

  constructor(
    private readonly deps: ListServiceDeps,
    maxPageCacheBytes = 64 * 1024 * 1024,
  ) {
    this.pages = new PageCache(maxPageCacheBytes);
  }

  private lister(target: ListTarget): BoundLister {
    const { listers } = this.deps;
    switch (target.kind) {
      case 'package':
        return bind(listers.package, target, this.deps.deadlineGraceMs);
      case 'repository':
        return bind(listers.repository, target, this.deps.deadlineGraceMs);
      case 'site':
        return bind(listers.site, target, this.deps.deadlineGraceMs);
    }
  }

  /** The inventory a read is served from; targets that cannot be read yet are 409s. */
  served(target: ListTarget): Promise<ServedInventory> {
    return this.lister(target).readable();
  }

  /**
   * The same, after starting the target's preparation when needed and waiting up to `waitMs` for
   * it (grep and compare take `wait_timeout_ms` as list does).
   */
  async servedAfter(target: ListTarget, waitMs: number): Promise<ServedInventory> {
    const lister = this.lister(target);
    const view = await lister.resolve(waitMs);
    if (view.row !== null) this.deps.ready.remember(view.row);
    return lister.readable();
  }

  /** The inventory a cursor pinned, when it is still the one served; null otherwise. */
  async pinned(target: ListTarget, inventoryId: string, pin: string | null): Promise<ServedInventory | null> {
    const row = this.deps.ready.byId(inventoryId) ?? (await this.deps.store.get(inventoryId));
    if (row === null) return null;
    const view = await this.lister(target).view(row, pin);
    return view.row?.id === inventoryId && view.served !== null ? (view as ServedInventory) : null;
  }

  /** The page as JSON text (the form it is served and size-checked in). */
  async list(query: ListQuery): Promise<JsonPage> {
    const { target } = query;
    const key = this.selectionKeys.of(target, query.selection);
    const lister = this.lister(target);
    let view: ServedView;
    let after: string | null = null;
    // "Blank starts page one": whitespace is blank too.
    if (query.after !== null && query.after.trim() !== '') {
      const cursor = this.deps.cursors.decode(query.after);
      if (cursor === null) throw new DomainError('VALIDATION_ERROR', 'after is not a valid cursor; start again without it.');
      if (cursor.selection !== key) {
        throw new DomainError('VALIDATION_ERROR', 'after belongs to another selection (target, paths, filters, recursion or limit changed); start again without it.');
      }
      const row = this.deps.ready.byId(cursor.inventory) ?? (await this.deps.store.get(cursor.inventory));
      if (row === null) throw new DomainError('VALIDATION_ERROR', 'after refers to a snapshot no longer served; start again without it.');
      view = await lister.view(row, cursor.pin);
      if (view.row?.id !== cursor.inventory) throw new DomainError('VALIDATION_ERROR', 'after refers to a snapshot no longer served; start again without it.');
      after = cursor.after;
    } else {
      view = await lister.resolve(query.waitMs);
    }
    if (view.row !== null) this.deps.ready.remember(view.row);
    const cacheKey = view.cacheable && view.row !== null ? [view.row.id, target.text, key, after ?? '', view.stamp].join('\u0000') : null;
    if (cacheKey === null) return this.build(view, query, key, after);
    const cached = this.pages.get(cacheKey);
    if (cached !== undefined) return cached;
    // Concurrent requests for a page not kept yet (a first request, a refreshed stamp) share one build.
    let building = this.building.get(cacheKey);
    if (building === undefined) {
      building = this.build(view, query, key, after).then((page) => {
        this.pages.set(cacheKey, page);
        return page;
      });
      const settled = (): void => void this.building.delete(cacheKey);
      building.then(settled, settled);
      this.building.set(cacheKey, building);
    }
    return building;
  }

  private async build(view: ServedView, query: ListQuery, key: string, after: string | null): Promise<JsonPage> {
    const json = JSON.stringify(await this.respond(view, query, key, after));
    if (Buffer.byteLength(json, 'utf8') > LIST_PAGE_LIMIT_BYTES) {
      throw new DomainError('VALIDATION_ERROR', `The page is larger than ${LIST_PAGE_LIMIT_BYTES} bytes; ask again with a smaller limit.`);
    }
    return new JsonPage(json);
  }

  private async respond(view: ServedView, query: ListQuery, key: string, after: string | null): Promise<ListResponseType> {
    let entries: ListEntryType[] = [];
    let hasMore = false;
    let nextCursor: string | null = null;
    if (view.row !== null) {
      const index = await this.deps.catalog.index(view.row.id, view.generation);
      const page = await index.page(query.selection, after);
      entries = page.entries.map((e) => toListEntry(e, view.actionTarget, view.inventoryKind === 'site'));
      hasMore = page.hasMore;
      if (hasMore && page.last !== null) nextCursor = this.deps.cursors.encode({ selection: key, inventory: view.row.id, after: page.last, pin: view.pin });
    }
    let fields = view.fields;
    // A crawl only finds linked pages: an empty page never claims the selection fully covered.
    if (entries.length === 0 && fields.coverage_state === 'complete') {
      fields = {
        ...fields,
        coverage_state: 'partial',
        coverage_reason: 'No stored page matches this selection; a crawl finds linked pages only, so this does not prove the paths absent.',
      };
    }
    return {
      inventory_kind: view.inventoryKind,
      requested_target: query.target.text,
      canonical_target: view.canonicalTarget,
      entries,
      has_more: hasMore,
      next_cursor: nextCursor,
      ...fields,
    };
  }
}
