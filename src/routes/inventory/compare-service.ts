import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { createTwoFilesPatch } from 'diff';
import { DomainError } from '../../errors.js';
import type { InventoryCatalog } from '../../inventory/store/catalog.js';
import type { CompareChangeType, CompareResponseType, DiffResponseType } from './compare-schemas.js';
import type { CursorCodec } from '../../inventory/query/cursor.js';
import type { ListService } from './list-service.js';
import type { ServedInventory } from './listing/types.js';
import type { StoredEntry } from '../../inventory/query/query.js';
import type { ReadService } from './read-service.js';
import { selectionKey, type Selection } from '../../inventory/query/selection.js';
import type { ListTarget } from '../../inventory/targets.js';

export interface CompareQuery {
  readonly base: ListTarget;
  readonly head: ListTarget;
  /** Paths and filters (always recursive); its `limit` is the changes per page. */
  readonly selection: Selection;
  readonly after: string | null;
  readonly waitMs: number;
}

export interface DiffRequest {
  readonly base: ListTarget;
  readonly head: ListTarget;
  readonly path: string;
  readonly context: number;
}

/** Largest side a diff reads, and largest diff it returns. */
export const DIFF_MAX_BYTES = 1024 * 1024;
/** Edit distance beyond which two texts are reported as too different to diff (bounded work). */
const DIFF_MAX_EDIT_LENGTH = 20_000;

/** Two targets can be compared when they are versions of one package or refs of one repository. */
export function sameSubject(a: ListTarget, b: ListTarget): boolean {
  if (a.kind === 'package' && b.kind === 'package') return a.registry === b.registry && a.name === b.name;
  if (a.kind === 'repository' && b.kind === 'repository') return a.host === b.host && a.owner.toLowerCase() === b.owner.toLowerCase() && a.repo.toLowerCase() === b.repo.toLowerCase();
  return false;
}

function side(entry: StoredEntry, served: ServedInventory): NonNullable<CompareChangeType['base']> {
  return { byte_size: entry.byteSize, line_count: entry.lineCount, content_hash: entry.contentHash, read: { target: served.actionTarget, path: entry.path } };
}

/**
 * `POST /v1/experimental/compare` and its diff: what changed between two prepared snapshots of
 * one package or repository, by path and content hash (the inventories are content-addressed, so
 * "modified" is exact), paged by path; and the unified diff of one path, bounded.
 */
export class CompareService {
  constructor(
    private readonly deps: { readonly list: ListService; readonly catalog: InventoryCatalog; readonly cursors: CursorCodec; readonly reader: ReadService },
  ) {}

  private check(base: ListTarget, head: ListTarget): void {
    if (!sameSubject(base, head)) throw new DomainError('VALIDATION_ERROR', 'base and head must be versions of one package or refs of one repository.');
  }

  async compare(query: CompareQuery): Promise<CompareResponseType> {
    this.check(query.base, query.head);
    const key = `c${createHash('sha256').update(JSON.stringify([selectionKey(query.base, query.selection), query.head.text])).digest('base64url').slice(0, 22)}`;
    let after: string | null = null;
    let pinned: string | null = null;
    if (query.after !== null && query.after.trim() !== '') {
      const cursor = this.deps.cursors.decode(query.after);
      if (cursor === null) throw new DomainError('VALIDATION_ERROR', 'after is not a valid cursor; start again without it.');
      if (cursor.selection !== key) throw new DomainError('VALIDATION_ERROR', 'after belongs to another comparison (targets, paths, filters or limit changed); start again without it.');
      after = cursor.after;
      pinned = cursor.inventory;
    }
    const [base, head] = await Promise.all([this.deps.list.servedAfter(query.base, query.waitMs), this.deps.list.servedAfter(query.head, query.waitMs)]);
    const pair = `${base.row.id}:${head.row.id}`;
    if (pinned !== null && pinned !== pair) throw new DomainError('VALIDATION_ERROR', 'after refers to snapshots no longer served; start again without it.');
    const [baseIndex, headIndex] = await Promise.all([this.deps.catalog.index(base.row.id, base.generation), this.deps.catalog.index(head.row.id, head.generation)]);
    const [olderFiles, newerFiles] = await Promise.all([baseIndex.selectedFiles(query.selection), headIndex.selectedFiles(query.selection)]);
    const older = new Map(olderFiles.map((e) => [e.path, e]));
    const newer = new Map(newerFiles.map((e) => [e.path, e]));
    const paths = [...new Set([...older.keys(), ...newer.keys()])].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
    const summary = { added: 0, removed: 0, modified: 0, unchanged: 0 };
    const changes: CompareChangeType[] = [];
    let hasMore = false;
    let last: string | null = null;
    for (const path of paths) {
      const o = older.get(path);
      const n = newer.get(path);
      const status = o === undefined ? 'added' : n === undefined ? 'removed' : o.contentHash === n.contentHash && o.byteSize === n.byteSize ? null : 'modified';
      if (status === null) {
        summary.unchanged++;
        continue;
      }
      summary[status]++;
      if (after !== null && Buffer.compare(Buffer.from(path, 'utf8'), Buffer.from(after, 'utf8')) <= 0) continue;
      if (changes.length === query.selection.limit) {
        hasMore = true;
        continue;
      }
      const shown = n ?? o;
      if (shown === undefined) continue;
      const text = (o === undefined || o.lineCount !== null) && (n === undefined || n.lineCount !== null);
      changes.push({
        path,
        status,
        language: shown.language,
        file_type: shown.fileType,
        intent: shown.intent,
        base: o === undefined ? null : side(o, base),
        head: n === undefined ? null : side(n, head),
        diff: text ? { base: base.actionTarget, head: head.actionTarget, path } : null,
      });
      last = path;
    }
    return {
      base: { requested_target: query.base.text, canonical_target: base.actionTarget, served: base.served },
      head: { requested_target: query.head.text, canonical_target: head.actionTarget, served: head.served },
      changes,
      summary,
      has_more: hasMore,
      next_cursor: hasMore && last !== null ? this.deps.cursors.encode({ selection: key, inventory: pair, after: last, pin: null }) : null,
    };
  }

  async diff(request: DiffRequest): Promise<DiffResponseType> {
    this.check(request.base, request.head);
    const [base, head] = await Promise.all([this.deps.list.served(request.base), this.deps.list.served(request.head)]);
    const [baseIndex, headIndex] = await Promise.all([this.deps.catalog.index(base.row.id, base.generation), this.deps.catalog.index(head.row.id, head.generation)]);
    const o = baseIndex.get(request.path);
    const n = headIndex.get(request.path);
    if (o === undefined && n === undefined) throw new DomainError('READ_PATH_NOT_FOUND', `${JSON.stringify(request.path)} is in neither snapshot.`);
    const status = o === undefined ? 'added' : n === undefined ? 'removed' : o.contentHash === n.contentHash ? 'unchanged' : 'modified';
    const sides = { base: o === undefined ? null : side(o, base), head: n === undefined ? null : side(n, head) };
    const read = async (e: StoredEntry | undefined): Promise<{ text: string | null; binary: boolean; over: boolean }> => {
      if (e === undefined) return { text: '', binary: false, over: false };
      if (e.lineCount === null) return { text: null, binary: true, over: false };
      if ((e.byteSize ?? 0) > DIFF_MAX_BYTES || e.contentHash === null) return { text: null, binary: false, over: true };
      const bytes = await this.deps.reader.content(e.contentHash);
      if (bytes === null) return { text: null, binary: false, over: true };
      return isUtf8(bytes) ? { text: bytes.toString('utf8'), binary: false, over: false } : { text: null, binary: true, over: false };
    };
    const [a, b] = await Promise.all([read(o), read(n)]);
    if (a.binary || b.binary) return { path: request.path, status, binary: true, diff: null, truncated: false, ...sides };
    if (a.text === null || b.text === null) return { path: request.path, status, binary: false, diff: null, truncated: true, ...sides };
    const patch = createTwoFilesPatch(o === undefined ? '/dev/null' : `a/${request.path}`, n === undefined ? '/dev/null' : `b/${request.path}`, a.text, b.text, undefined, undefined, {
      context: request.context,
      maxEditLength: DIFF_MAX_EDIT_LENGTH,
    });
    if (patch === undefined || Buffer.byteLength(patch, 'utf8') > DIFF_MAX_BYTES) return { path: request.path, status, binary: false, diff: null, truncated: true, ...sides };
    return { path: request.path, status, binary: false, diff: patch, truncated: false, ...sides };
  }
}
