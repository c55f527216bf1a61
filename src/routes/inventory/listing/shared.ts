import { DomainError } from '../../../errors.js';
import { exactSelector, type IndexEntry, type StoredEntry } from '../../../inventory/query/query.js';
import type { ListEntryType, ListResponseType } from '../schemas.js';
import type { InventoryStore } from '../../../inventory/store/store.js';
import type { InventoryKind, InventoryRow } from '../../../inventory/store/records.js';

/**
 * Ready package and repository snapshots by identity and by id: they never change, so a request
 * naming one (an exact version, a pinned commit, a cursor) needs no query. Bounded; cleared when full.
 */
export class ReadyRows {
  private readonly byIdentity = new Map<string, InventoryRow>();
  private readonly byIdMap = new Map<string, InventoryRow>();

  constructor(private readonly max = 50_000) {}

  get(identity: string): InventoryRow | undefined {
    return this.byIdentity.get(identity);
  }

  byId(id: string): InventoryRow | undefined {
    return this.byIdMap.get(id);
  }

  /** Keeps a ready row (others are ignored); true when it was not known yet. */
  remember(row: InventoryRow): boolean {
    if (row.state !== 'ready' || row.kind === 'site' || this.byIdMap.has(row.id)) return false;
    if (this.byIdMap.size >= this.max) {
      this.byIdentity.clear();
      this.byIdMap.clear();
    }
    this.byIdentity.set(row.identity, row);
    this.byIdMap.set(row.id, row);
    return true;
  }

  /** The ready row of an identity, from memory or the store; any row the store has otherwise. */
  async load(store: InventoryStore, identity: string): Promise<InventoryRow | null> {
    const known = this.byIdentity.get(identity);
    if (known) return known;
    const row = await store.byIdentity(identity);
    if (row) this.remember(row);
    return row;
  }
}

/** Collaborators every lister shares. */
export interface ListerDeps {
  readonly store: InventoryStore;
  /** Ready snapshots, shared with the list service (cursors find their snapshot there). */
  readonly ready: ReadyRows;
  /** Adds the preparation job of an inventory (one per inventory: concurrent requests share it). */
  readonly enqueue: (row: InventoryRow) => Promise<void>;
  /** Waits (by event) until `settled` accepts the inventory or the time is up; returns the last row read. */
  readonly wait: (row: InventoryRow, ms: number, settled: (row: InventoryRow) => boolean) => Promise<{ row: InventoryRow; completed: boolean }>;
  /** A failed preparation is tried again by a request arriving this long after it failed. */
  readonly failedRetryMs: number;
}

export const SETTLED_STATES: ReadonlySet<string> = new Set(['ready', 'failed', 'unavailable']);

export function settled(row: InventoryRow): boolean {
  return SETTLED_STATES.has(row.state);
}

/** Retries a failed preparation once its retry interval passed; the row to continue with. */
export async function retryIfDue(deps: ListerDeps, row: InventoryRow): Promise<InventoryRow> {
  if (row.state !== 'failed' || row.finishedAt === null || Date.now() - row.finishedAt.getTime() <= deps.failedRetryMs) return row;
  const retried = await deps.store.retry(row.id);
  if (!retried) return row;
  await deps.enqueue(retried);
  return retried;
}

type CodeState = NonNullable<ListResponseType['code_index_state']>;
type IndexingStatus = NonNullable<ListResponseType['indexing_status']>;

/** `code_index_state` and `indexing_status` of a source inventory's state. */
export function sourceStates(row: InventoryRow, stale = false): { code: CodeState; status: IndexingStatus } {
  switch (row.state) {
    case 'ready':
      return { code: stale ? 'stale' : 'current', status: 'indexed' };
    case 'preparing':
      return { code: 'indexing', status: 'indexing' };
    case 'pending':
      return { code: 'pending', status: 'pending' };
    default:
      return { code: 'failed', status: 'failed' };
  }
}

/** From recorded preparation times of the kind, scaled by a known file count. */
export async function estimate(store: InventoryStore, kind: InventoryKind, row: InventoryRow): Promise<ListResponseType['indexing_estimate']> {
  const samples = await store.recentPreparations(kind);
  const started = row.startedAt ?? row.updatedAt;
  const elapsed = Math.max(0, Math.round((Date.now() - started.getTime()) / 1000));
  if (samples.length === 0) return { lower_seconds: null, upper_seconds: null, elapsed_seconds: elapsed, sample_count: 0, source: null };
  const files = row.facts.fileCount ?? null;
  const durations = samples.map((s) => (files !== null && s.fileCount ? (s.ms / Math.max(s.fileCount, 1)) * files : s.ms)).sort((a, b) => a - b);
  const at = (q: number): number => durations[Math.min(durations.length - 1, Math.floor(q * durations.length))] ?? 0;
  return {
    lower_seconds: Math.floor(at(0.25) / 1000),
    upper_seconds: Math.ceil(at(0.9) / 1000),
    elapsed_seconds: elapsed,
    sample_count: samples.length,
    source: files === null ? `recent_${kind}_preparations` : `recent_${kind}_preparations_per_file`,
  };
}

export function notReady(target: string, row: InventoryRow): DomainError {
  const failed = row.state === 'failed';
  return new DomainError(
    'TARGET_NOT_READY',
    `${target} is ${failed ? 'not readable: its preparation failed' : 'being prepared'}; list it with wait_timeout_ms to wait.`,
    { extras: failed ? {} : { indexing_ref: row.id } },
  );
}

/**
 * A listed entry with its actions. A directory's browse selector names exactly that directory
 * (glob syntax in its name escaped); for sites it carries one extra leading slash, since a site
 * request drops one (`//twice` stays the directory `/twice`).
 */
export function toListEntry(entry: IndexEntry, target: string, site: boolean): ListEntryType {
  if (entry.kind === 'directory') {
    const selector = exactSelector(entry.path);
    return {
      kind: 'directory',
      path: entry.path,
      title: null,
      language: null,
      file_type: null,
      intent: null,
      byte_size: null,
      line_count: null,
      content_hash: null,
      read: null,
      browse: { target, paths: [site ? `/${selector}` : selector] },
    };
  }
  return { ...entryFacts(entry), read: { target, path: entry.path }, browse: null };
}

/** What list and read both say of a stored file or page. */
export function entryFacts(entry: StoredEntry): Pick<ListEntryType, 'kind' | 'path' | 'title' | 'language' | 'file_type' | 'intent' | 'byte_size' | 'line_count' | 'content_hash'> & { kind: StoredEntry['kind'] } {
  return {
    kind: entry.kind,
    path: entry.path,
    title: entry.title,
    language: entry.language,
    file_type: entry.fileType,
    intent: entry.intent,
    byte_size: entry.byteSize,
    line_count: entry.lineCount,
    content_hash: entry.contentHash,
  };
}

/** Fields that only site targets carry, all null for source targets. */
export const NO_SITE_FIELDS = {
  inventory_state: null,
  crawl_status: null,
  coverage_state: null,
  coverage_reason: null,
  preparation: null,
} as const;

/**
 * Values loaded per key and kept briefly: lists that change only as preparations finish. The
 * stamp (when the value was loaded) lets page caches key on the version they showed.
 */
export class BriefCache<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxKeys = 10_000,
  ) {}

  get(key: string, load: () => Promise<T>): { stamp: number; value: Promise<T> } {
    const cached = this.entries.get(key);
    if (cached && Date.now() - cached.at < this.ttlMs) return { stamp: cached.at, value: cached.value };
    const at = Date.now();
    const value = load();
    value.catch(() => this.entries.delete(key));
    if (this.entries.size >= this.maxKeys) this.entries.clear();
    this.entries.set(key, { at, value });
    return { stamp: at, value };
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
