import { createHash } from 'node:crypto';
import { ProblemError } from '../http/problems.js';
import type { InventoryCatalog } from './catalog.js';
import type { CursorCodec } from './cursor.js';
import { compileMatcher, GREP_LIMITS, GrepPatternError, lineAt, lineStarts, window, type GrepPattern, type Matcher } from './grep.js';
import type { ListService } from './list-service.js';
import type { ServedInventory } from './listing/types.js';
import { indexableText } from './prepare.js';
import type { StoredEntry } from './query.js';
import type { ReadService } from './read-service.js';
import type { GrepMatchType, GrepResponseType } from './grep-schemas.js';
import { selectionKey, type Selection } from './selection.js';
import type { InventoryStore } from './store.js';
import type { ListTarget } from './targets.js';

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
  readonly now?: () => number;
}

/** Where a page stopped: after this match (path, line, column), or after this whole file (line -1). */
interface Position {
  readonly path: string;
  readonly line: number;
  readonly column: number;
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
  return JSON.stringify([p.path, p.line, p.column]);
}

function decodePosition(text: string): Position | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed) || parsed.length !== 3) return null;
    const [path, line, column] = parsed as unknown[];
    if (typeof path !== 'string' || typeof line !== 'number' || typeof column !== 'number') return null;
    return { path, line, column };
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

/** A statement PostgreSQL cancelled at its `statement_timeout`. */
function cancelled(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) if ((e as { code?: unknown }).code === '57014') return true;
  return false;
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
    let matcher: Matcher;
    try {
      matcher = compileMatcher(query.pattern);
    } catch (error) {
      if (error instanceof GrepPatternError) throw new ProblemError('VALIDATION_ERROR', `${error.message}.`);
      throw error;
    }
    const key = grepKey(query);
    let served: ServedInventory;
    let from: Position | null = null;
    if (query.after !== null && query.after.trim() !== '') {
      const cursor = this.deps.cursors.decode(query.after);
      const position = cursor === null ? null : decodePosition(cursor.after);
      if (cursor === null || position === null) throw new ProblemError('VALIDATION_ERROR', 'after is not a valid cursor; start again without it.');
      if (cursor.selection !== key) {
        throw new ProblemError('VALIDATION_ERROR', 'after belongs to another search (target, pattern, paths, filters, context or limit changed); start again without it.');
      }
      const pinned = await this.deps.list.pinned(query.target, cursor.inventory, cursor.pin);
      if (pinned === null) throw new ProblemError('VALIDATION_ERROR', 'after refers to a snapshot no longer served; start again without it.');
      served = pinned;
      from = position;
    } else {
      served = await this.deps.list.servedAfter(query.target, query.waitMs);
    }
    return this.scan(served, query, matcher, key, from);
  }

  /**
   * Contents of an inventory with no indexed text (over the indexed size, or stored before there
   * was an index): always scanned. Asked once per snapshot: a ready snapshot never changes.
   */
  private async unindexed(served: ServedInventory, files: () => readonly StoredEntry[]): Promise<ReadonlySet<string>> {
    const key = `${served.row.id}:${served.generation}`;
    const known = this.unindexedBySnapshot.get(key);
    if (known !== undefined && (known.missing.size === 0 || this.now() < known.until)) return known.missing;
    const hashes = [...new Set(files().filter((f) => f.lineCount !== null).map((f) => f.contentHash).filter((h): h is string => h !== null))];
    const indexed = await this.deps.store.indexedTexts(hashes);
    const missing = new Set(hashes.filter((h) => !indexed.has(h)));
    if (this.unindexedBySnapshot.size >= 1000) this.unindexedBySnapshot.clear();
    // A snapshot just prepared is indexed in the background: ask again a little later until it is.
    this.unindexedBySnapshot.set(key, { missing, until: this.now() + UNINDEXED_RECHECK_MS });
    return missing;
  }

  /** The selected text files that can match, in path order, from the cursor's file on. */
  private async candidates(served: ServedInventory, query: GrepQuery, matcher: Matcher, from: Position | null): Promise<{ files: StoredEntry[]; narrowed: boolean }> {
    const index = await this.deps.catalog.index(served.row.id, served.generation);
    const usable = (files: StoredEntry[]): StoredEntry[] =>
      files.filter((e) => e.contentHash !== null && e.lineCount !== null && !(from !== null && from.line === FILE_DONE && e.path === from.path));
    const everything = (): { files: StoredEntry[]; narrowed: false } => ({ files: usable(index.selectedFiles(query.selection, from?.path ?? null)), narrowed: false });
    if (matcher.prefilter === null) return everything();
    // A pattern found too common a moment ago still is: no need to ask the index again.
    const commonKey = `${matcher.prefilter.kind}\u0000${String(query.pattern.caseSensitive)}\u0000${matcher.prefilter.pattern}`;
    const known = this.common.get(commonKey);
    if (known !== undefined && this.now() < known) return everything();
    let found: { hashes: Set<string>; complete: boolean };
    try {
      found = await this.deps.store.grepCandidates({ ...matcher.prefilter, caseSensitive: query.pattern.caseSensitive, timeoutMs: PREFILTER_TIMEOUT_MS }, PREFILTER_CAP);
    } catch (error) {
      if (!cancelled(error)) throw error;
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
    return { files: usable(index.selectedWithContent(query.selection, [...found.hashes, ...unindexed], from?.path ?? null)), narrowed: true };
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

  private async scan(served: ServedInventory, query: GrepQuery, matcher: Matcher, key: string, from: Position | null): Promise<GrepResponseType> {
    const started = this.now();
    const { files, narrowed } = await this.candidates(served, query, matcher, from);
    const limit = query.selection.limit;
    const matches: GrepMatchType[] = [];
    const capped: string[] = [];
    let bytesScanned = 0;
    let filesScanned = 0;
    let filesWithMatches = 0;
    let stoppedAt: GrepResponseType['stopped_at'] = null;
    let last: Position | null = null;
    let more = false;
    let i = 0;
    scanning: while (i < files.length) {
      const batch: StoredEntry[] = [];
      for (let bytes = 0; i + batch.length < files.length && batch.length < BATCH_FILES && bytes < BATCH_BYTES; ) {
        const f = files[i + batch.length];
        if (f === undefined) break;
        batch.push(f);
        bytes += f.byteSize ?? 0;
      }
      const texts = await this.texts(batch);
      for (const file of batch) {
        if (this.now() - started > GREP_LIMITS.maxScanMs && filesScanned > 0) {
          stoppedAt = 'time';
          break scanning;
        }
        if (bytesScanned + (file.byteSize ?? 0) > GREP_LIMITS.maxBytesScanned && filesScanned > 0) {
          stoppedAt = 'bytes_scanned';
          break scanning;
        }
        i++;
        const text = file.contentHash === null ? undefined : texts.get(file.contentHash);
        filesScanned++;
        bytesScanned += file.byteSize ?? 0;
        if (text === undefined || !matcher.test(text)) {
          last = { path: file.path, line: FILE_DONE, column: 0 };
          continue;
        }
        const skip = from !== null && from.path === file.path ? from : null;
        const found = this.fileMatches(file, text, matcher, query, served, skip, limit - matches.length);
        if (found.matches.length > 0) filesWithMatches++;
        matches.push(...found.matches);
        if (found.capped) capped.push(file.path);
        if (found.more) {
          // The page is full inside this file: go on from its last match.
          const m = found.matches.at(-1);
          last = m === undefined ? last : { path: file.path, line: m.line_number, column: m.column_start };
          more = true;
          stoppedAt = 'limit';
          break scanning;
        }
        last = { path: file.path, line: FILE_DONE, column: 0 };
        if (matches.length >= limit && i < files.length) {
          more = true;
          stoppedAt = 'limit';
          break scanning;
        }
      }
    }
    if (stoppedAt === 'time' || stoppedAt === 'bytes_scanned') more = true;
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
      files_scanned: filesScanned,
      files_with_matches: filesWithMatches,
      bytes_scanned: bytesScanned,
      index_narrowed: narrowed,
    };
  }

  /** Matches of one file after `skip`, at most `room` (plus whether more follow) and `maxMatchesPerFile`. */
  private fileMatches(
    file: StoredEntry,
    text: string,
    matcher: Matcher,
    query: GrepQuery,
    served: ServedInventory,
    skip: Position | null,
    room: number,
  ): { matches: GrepMatchType[]; more: boolean; capped: boolean } {
    const starts = lineStarts(text);
    const out: GrepMatchType[] = [];
    // Every match of the file counts toward its cap, those an earlier page showed too.
    let total = 0;
    for (let n = 0; n < starts.length; n++) {
      const lineNumber = n + 1;
      const line = lineAt(text, starts, n);
      for (const m of matcher.line(line)) {
        if (++total > GREP_LIMITS.maxMatchesPerFile) return { matches: out, more: false, capped: true };
        if (skip !== null && (lineNumber < skip.line || (lineNumber === skip.line && m.start + 1 <= skip.column))) continue;
        if (out.length === room) return { matches: out, more: true, capped: false };
        const shown = window(line, m.start);
        const context = (k: number): { line_number: number; text: string } => ({ line_number: k + 1, text: window(lineAt(text, starts, k), 0).text });
        out.push({
          path: file.path,
          line_number: lineNumber,
          column_start: m.start + 1,
          column_end: m.end + 1,
          line: shown.text,
          line_column: shown.offset + 1,
          before: range(Math.max(0, n - query.contextLines), n).map(context),
          after: range(n + 1, Math.min(starts.length, n + 1 + query.contextLines)).map(context),
          language: file.language,
          intent: file.intent,
          read: { target: served.actionTarget, path: file.path },
        });
      }
    }
    return { matches: out, more: false, capped: false };
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
}
