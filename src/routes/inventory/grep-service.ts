import { createHash } from 'node:crypto';
import { DomainError } from '../../errors.js';
import type { InventoryCatalog } from '../../inventory/store/catalog.js';
import type { CursorCodec } from '../../inventory/query/cursor.js';
import { GrepPoolBusy, GrepTaskOverBudget, type GrepPool } from '../../threads/grep-pool.js';
import { checkPattern, GREP_LIMITS, GrepPatternError, isPlainText, prefilterOf, type GrepPattern, type Matcher } from '../../inventory/query/grep.js';
import type { BatchScan, ScanFile, ScanFrom } from '../../inventory/query/grep-scan.js';
import type { ListService } from './list-service.js';
import type { ServedInventory } from './listing/types.js';
import { indexableText } from '../../inventory/prepare/package.js';
import type { StoredEntry } from '../../inventory/query/query.js';
import type { ReadService } from './read-service.js';
import type { GrepMatchType, GrepResponseType } from './grep-schemas.js';
import { selectionKey, type Selection } from '../../inventory/query/selection.js';
import type { InventoryStore } from '../../inventory/store/store.js';
import type { ListTarget } from '../../inventory/targets.js';

export interface GrepQuery {
  readonly target: ListTarget;
  /** Paths and filters (always recursive); its `limit` is the matches per page. */
  readonly selection: Selection;
  readonly pattern: GrepPattern;
  readonly contextLines: number;
  readonly after: string | null;
  readonly waitMs: number;
}

export interface GrepServiceDeps {
  readonly list: ListService;
  readonly store: InventoryStore;
  readonly catalog: InventoryCatalog;
  readonly cursors: CursorCodec;
  readonly reader: ReadService;
  /** Where patterns are compiled and files matched: never the event loop. */
  readonly pool: GrepPool;
  readonly now?: () => number;
}

/**
 * Where a page stopped: after this match (path, line, column) or at the start of a line (column
 * 0), with the file's matches on earlier lines (`seen`, for its cap); or after this whole file
 * (line -1). Cursors made before `seen` existed resume by scanning their file from its start.
 */
interface Position {
  readonly path: string;
  readonly line: number;
  readonly column: number;
  readonly seen?: number;
}

const FILE_DONE = -1;
/** Texts read from the index per round trip. */
const BATCH_FILES = 64;
const BATCH_BYTES = 8 * 1024 * 1024;
/** What the trigram prefilter may take; past it the selected files are scanned without it. */
const PREFILTER_TIMEOUT_MS = 1000;
/** Stored texts the prefilter may name; a pattern matching more is read in path order instead. */
const PREFILTER_CAP = 1000;
/** How long a pattern the index could not narrow is read in path order without asking again. */
const COMMON_PATTERN_MS = 60_000;
/** How long a snapshot's unindexed contents are taken as known while some remain. */
const UNINDEXED_RECHECK_MS = 10_000;
/** Every file of a snapshot (recursive from the top, no filter). */
const ALL_FILES: Selection = { paths: [''], recursive: true, limit: 1, fileTypes: [], languages: [], intents: [] };

function encodePosition(p: Position): string {
  return JSON.stringify(p.seen === undefined ? [p.path, p.line, p.column] : [p.path, p.line, p.column, p.seen]);
}

/** Where the scan of the cursor's own file starts. */
function scanFrom(p: Position): ScanFrom {
  return p.seen === undefined ? { line: p.line, column: p.column, seen: 0, rescan: true } : { line: p.line, column: p.column, seen: p.seen };
}

function decodePosition(text: string): Position | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed) || (parsed.length !== 3 && parsed.length !== 4)) return null;
    const [path, line, column, seen] = parsed as unknown[];
    if (typeof path !== 'string' || typeof line !== 'number' || typeof column !== 'number') return null;
    if (seen === undefined) return { path, line, column };
    return typeof seen === 'number' && Number.isSafeInteger(seen) && seen >= 0 ? { path, line, column, seen } : null;
  } catch {
    return null;
  }
}

/** Identity of a grep request for its cursors: the target, selection, pattern and page shape. */
export function grepKey(query: Pick<GrepQuery, 'target' | 'selection' | 'pattern' | 'contextLines'>): string {
  const p = query.pattern;
  const canonical = JSON.stringify([selectionKey(query.target, query.selection), p.pattern, p.regex, p.caseSensitive, query.contextLines]);
  return `g${createHash('sha256').update(canonical).digest('base64url').slice(0, 22)}`;
}

/** The SQLSTATE of a PostgreSQL error (or of its cause), if any. */
function sqlState(error: unknown): string | null {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}

/**
 * A prefilter PostgreSQL gave up on: cancelled at its `statement_timeout` (57014), or a pattern
 * it cannot take as written (invalid regular expression, too complex, a character its text cannot
 * hold). The pattern is valid RE2 (the thread compiled it): the files are scanned without the index.
 */
const PREFILTER_GIVE_UP = new Set(['57014', '2201B', '54001', '22021', '22P05']);

/** Reads each problem of a grep thread as the caller's. */
function invalidPattern(message: string): DomainError {
  return new DomainError('VALIDATION_ERROR', `${message}.`);
}

/**
 * `POST /v1/grep`: matches of exact text or an RE2 expression in the files a selection picks
 * from a prepared inventory, in path then line order. The trigram index narrows the files first
 * (a literal, or a regular expression PostgreSQL reads the same way); only those are read and
 * matched line by line. Bounded per request in bytes read and time, and per file in matches: a
 * page that stopped at a bound says which, and its cursor goes on from there.
 */
export class GrepService {
  /** Prefilters the index found too common to narrow, until when that is taken as known. */
  private readonly common = new Map<string, number>();
  private readonly unindexedBySnapshot = new Map<string, { readonly missing: ReadonlySet<string>; readonly until: number }>();

  constructor(private readonly deps: GrepServiceDeps) {}

  private now(): number {
    return this.deps.now?.() ?? performance.now();
  }

  async grep(query: GrepQuery): Promise<GrepResponseType> {
    try {
      checkPattern(query.pattern);
    } catch (error) {
      if (error instanceof GrepPatternError) throw invalidPattern(error.message);
      throw error;
    }
    // A regular expression is compiled on a grep thread: a large program takes a while to build.
    if (!isPlainText(query.pattern)) {
      const compiled = await this.threads((pool) => pool.compile(query.pattern));
      if (!compiled.ok) throw invalidPattern(compiled.message);
    }
    const key = grepKey(query);
    let served: ServedInventory;
    let from: Position | null = null;
    if (query.after !== null && query.after.trim() !== '') {
      const cursor = this.deps.cursors.decode(query.after);
      const position = cursor === null ? null : decodePosition(cursor.after);
      if (cursor === null || position === null) throw new DomainError('VALIDATION_ERROR', 'after is not a valid cursor; start again without it.');
      if (cursor.selection !== key) {
        throw new DomainError('VALIDATION_ERROR', 'after belongs to another search (target, pattern, paths, filters, context or limit changed); start again without it.');
      }
      const pinned = await this.deps.list.pinned(query.target, cursor.inventory, cursor.pin);
      if (pinned === null) throw new DomainError('VALIDATION_ERROR', 'after refers to a snapshot no longer served; start again without it.');
      served = pinned;
      from = position;
    } else {
      served = await this.deps.list.servedAfter(query.target, query.waitMs);
    }
    return this.scan(served, query, key, from);
  }

  /** A grep thread's answer; a full pool is a 503 to retry, as for the synchronous analysis. */
  private async threads<T>(task: (pool: GrepPool) => Promise<T>): Promise<T> {
    try {
      return await task(this.deps.pool);
    } catch (error) {
      if (error instanceof GrepPoolBusy) throw new DomainError('SERVICE_UNAVAILABLE', 'Every grep thread is busy; retry shortly.', { retryAfterSeconds: 1 });
      throw error;
    }
  }

  /**
   * Contents of an inventory with no indexed text (over the indexed size, or stored before there
   * was an index): always scanned. Asked once per snapshot: a ready snapshot never changes.
   */
  private async unindexed(served: ServedInventory, files: () => Promise<readonly StoredEntry[]>): Promise<ReadonlySet<string>> {
    const key = `${served.row.id}:${served.generation}`;
    const known = this.unindexedBySnapshot.get(key);
    if (known !== undefined && (known.missing.size === 0 || this.now() < known.until)) return known.missing;
    const hashes = [...new Set((await files()).filter((f) => f.lineCount !== null).map((f) => f.contentHash).filter((h): h is string => h !== null))];
    const indexed = await this.deps.store.indexedTexts(hashes);
    const missing = new Set(hashes.filter((h) => !indexed.has(h)));
    if (this.unindexedBySnapshot.size >= 1000) this.unindexedBySnapshot.clear();
    // A snapshot just prepared is indexed in the background: ask again a little later until it is.
    this.unindexedBySnapshot.set(key, { missing, until: this.now() + UNINDEXED_RECHECK_MS });
    return missing;
  }

  /** The selected text files that can match, in path order, from the cursor's file on. */
  private async candidates(served: ServedInventory, query: GrepQuery, from: Position | null): Promise<{ files: StoredEntry[]; narrowed: boolean }> {
    const index = await this.deps.catalog.index(served.row.id, served.generation);
    const usable = (files: StoredEntry[]): StoredEntry[] =>
      files.filter((e) => e.contentHash !== null && e.lineCount !== null && !(from !== null && from.line === FILE_DONE && e.path === from.path));
    const everything = async (): Promise<{ files: StoredEntry[]; narrowed: false }> => ({ files: usable(await index.selectedFiles(query.selection, from?.path ?? null)), narrowed: false });
    const prefilter: Matcher['prefilter'] = prefilterOf(query.pattern);
    if (prefilter === null) return everything();
    // A pattern found too common a moment ago still is: no need to ask the index again.
    const commonKey = `${prefilter.kind}\u0000${String(query.pattern.caseSensitive)}\u0000${prefilter.pattern}`;
    const known = this.common.get(commonKey);
    if (known !== undefined && this.now() < known) return everything();
    let found: { hashes: Set<string>; complete: boolean };
    try {
      found = await this.deps.store.grepCandidates({ ...prefilter, caseSensitive: query.pattern.caseSensitive, timeoutMs: PREFILTER_TIMEOUT_MS }, PREFILTER_CAP);
    } catch (error) {
      const state = sqlState(error);
      if (state === null || !PREFILTER_GIVE_UP.has(state)) throw error;
      return everything();
    }
    // Too common to narrow: reading in path order fills a page soonest.
    if (!found.complete) {
      if (this.common.size >= 1000) this.common.clear();
      this.common.set(commonKey, this.now() + COMMON_PATTERN_MS);
      return everything();
    }
    const unindexed = await this.unindexed(served, () => index.selectedFiles(ALL_FILES));
    // The index's answer is mapped back to paths: no walk over the whole snapshot.
    return { files: usable(await index.selectedWithContent(query.selection, [...found.hashes, ...unindexed], from?.path ?? null)), narrowed: true };
  }

  /** Texts of a batch of files: from the index, else decompressed (and indexed for next time). */
  private async texts(batch: readonly StoredEntry[]): Promise<Map<string, string>> {
    const hashes = [...new Set(batch.map((f) => f.contentHash).filter((h): h is string => h !== null))];
    const texts = await this.deps.store.texts(hashes);
    const backfill: { hash: string; content: string }[] = [];
    for (const hash of hashes) {
      if (texts.has(hash)) continue;
      const bytes = await this.deps.reader.content(hash);
      if (bytes === null) continue;
      texts.set(hash, bytes.toString('utf8'));
      const indexable = indexableText(bytes);
      if (indexable !== null) backfill.push({ hash, content: indexable });
    }
    await this.deps.store.putTexts(backfill);
    return texts;
  }

  private async scan(served: ServedInventory, query: GrepQuery, key: string, from: Position | null): Promise<GrepResponseType> {
    const started = this.now();
    const { files, narrowed } = await this.candidates(served, query, from);
    const limit = query.selection.limit;
    const matches: GrepMatchType[] = [];
    const capped: string[] = [];
    const skipped: { path: string; line_number: number }[] = [];
    let bytesScanned = 0;
    let work = 0;
    let filesScanned = 0;
    let filesWithMatches = 0;
    let stoppedAt: GrepResponseType['stopped_at'] = null;
    let last: Position | null = null;
    let more = false;
    let i = 0;
    const begun = (): boolean => filesScanned > 0 || bytesScanned > 0;
    scanning: while (i < files.length) {
      if (begun() && this.now() - started > GREP_LIMITS.maxScanMs) {
        stoppedAt = 'time';
        break;
      }
      const batch: StoredEntry[] = [];
      for (let bytes = 0; i + batch.length < files.length && batch.length < BATCH_FILES && bytes < BATCH_BYTES; ) {
        const f = files[i + batch.length];
        if (f === undefined) break;
        batch.push(f);
        bytes += f.byteSize ?? 0;
      }
      const texts = await this.texts(batch);
      const scanFiles: ScanFile[] = batch.map((f) => ({
        path: f.path,
        // A text no longer stored is scanned as empty: it has no lines to match.
        text: (f.contentHash === null ? undefined : texts.get(f.contentHash)) ?? '',
        from: from !== null && from.path === f.path ? scanFrom(from) : null,
      }));
      let result: BatchScan;
      try {
        const answer = await this.threads((pool) =>
          pool.scan(query.pattern, {
            files: scanFiles,
            contextLines: query.contextLines,
            room: limit - matches.length,
            budget: {
              timeMs: Math.max(0, GREP_LIMITS.maxScanMs - (this.now() - started)),
              bytes: GREP_LIMITS.maxBytesScanned - bytesScanned,
              work: GREP_LIMITS.maxScanWork - work,
              started: begun(),
            },
          }),
        );
        if ('invalid' in answer) throw invalidPattern(answer.invalid);
        result = answer;
      } catch (error) {
        if (!(error instanceof GrepTaskOverBudget)) throw error;
        // The thread's backstop: the bounds inside the scan should have stopped it first. So that
        // the next page moves on, a batch that alone went over it leaves its first file out.
        const first = batch[0];
        if (!begun() && first !== undefined) {
          skipped.push({ path: first.path, line_number: from?.path === first.path && from.line > 0 ? from.line : 1 });
          last = { path: first.path, line: FILE_DONE, column: 0 };
        }
        stoppedAt = 'time';
        break;
      }
      bytesScanned += result.bytes;
      work += result.work;
      for (const scanned of result.files) {
        const file = batch.find((f) => f.path === scanned.path);
        if (file === undefined) continue;
        const resumed = from !== null && from.path === file.path ? from : null;
        if (scanned.matches.length > 0) filesWithMatches++;
        for (const m of scanned.matches) matches.push({ path: file.path, ...m, language: file.language, intent: file.intent, read: { target: served.actionTarget, path: file.path } });
        if (scanned.capped) capped.push(file.path);
        for (const line of scanned.skippedLines) skipped.push({ path: file.path, line_number: line });
        const next = scanned.next;
        if (scanned.full || scanned.stop !== null) {
          if (next !== null) {
            // A file the scan got into counts as scanned, though a later page finishes it.
            if (next.line > (resumed?.line ?? 1) || scanned.matches.length > 0) filesScanned++;
            last = { path: file.path, line: next.line, column: next.column, seen: next.seen };
          }
          more = true;
          stoppedAt = scanned.full ? 'limit' : scanned.stop;
          break scanning;
        }
        filesScanned++;
        i++;
        last = { path: file.path, line: FILE_DONE, column: 0 };
        if (matches.length >= limit && i < files.length) {
          more = true;
          stoppedAt = 'limit';
          break scanning;
        }
      }
    }
    if (stoppedAt === 'time' || stoppedAt === 'bytes_scanned') more = last !== null;
    const nextCursor = more && last !== null ? this.deps.cursors.encode({ selection: key, inventory: served.row.id, after: encodePosition(last), pin: served.pin }) : null;
    return {
      inventory_kind: served.inventoryKind,
      requested_target: query.target.text,
      canonical_target: served.actionTarget,
      served: served.served,
      matches,
      has_more: more,
      next_cursor: nextCursor,
      stopped_at: stoppedAt,
      capped_files: capped,
      skipped_lines: skipped,
      files_scanned: filesScanned,
      files_with_matches: filesWithMatches,
      bytes_scanned: bytesScanned,
      index_narrowed: narrowed,
    };
  }
}

