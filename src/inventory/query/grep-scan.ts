import { GREP_LIMITS, lineAt, lineStarts, window, type Matcher } from './grep.js';

/**
 * The matching half of grep, pure and bounded, run on a grep thread (src/threads/grep-worker.ts):
 * files are read in chunks of whole lines, and before each chunk the request's clock, bytes and
 * work (program instructions × characters, what a linear-time engine's worst case costs) are
 * checked, so a page stops inside a file as well as between files, at a line its cursor resumes
 * from. A line whose work alone exceeds a whole request's is never matched: it is named instead.
 */

/** Characters matched per chunk (a longer line is a chunk of its own). */
const CHUNK_CHARS = 64 * 1024;
/** Work per chunk, so the clock is read often whatever the program size. */
const CHUNK_WORK = 4 * 1024 * 1024;

/** Where scanning of one file starts: line `line` (1-based), after the match at `column` on it. */
export interface ScanFrom {
  readonly line: number;
  readonly column: number;
  /** Matches of the file on lines before `line` (they count toward the file's cap). */
  readonly seen: number;
  /** From a cursor that predates `seen`: scan from line 1, skipping up to (line, column). */
  readonly rescan?: boolean;
}

export interface ScanFile {
  readonly path: string;
  readonly text: string;
  readonly from: ScanFrom | null;
}

/** A match as the thread builds it; the entry's own fields are added by the service. */
export interface RawMatch {
  readonly line_number: number;
  readonly column_start: number;
  readonly column_end: number;
  readonly line: string;
  readonly line_column: number;
  readonly before: { line_number: number; text: string }[];
  readonly after: { line_number: number; text: string }[];
}

export type ScanStop = 'time' | 'bytes_scanned';

export interface FileScan {
  readonly path: string;
  readonly matches: RawMatch[];
  /** More matches than one file reports: the rest are left out. */
  readonly capped: boolean;
  /** The page filled inside this file (more of its matches follow). */
  readonly full: boolean;
  /** A bound stopped the scan inside this file (or before it: `next` is its first line). */
  readonly stop: ScanStop | null;
  /** Where the next page resumes in this file, when it did not finish. */
  readonly next: ScanFrom | null;
  /** Lines not matched: their work alone exceeds a request's (1-based). */
  readonly skippedLines: number[];
}

/** What one request may still spend, and what a scan spent. */
export interface ScanBudget {
  /** Wall-clock milliseconds left (measured on the thread from the start of the task). */
  readonly timeMs: number;
  readonly bytes: number;
  readonly work: number;
  /** Whether anything was scanned earlier in the request: the first chunk always goes. */
  readonly started: boolean;
}

export interface BatchScan {
  readonly files: FileScan[];
  readonly bytes: number;
  readonly work: number;
}

export interface BatchInput {
  readonly files: readonly ScanFile[];
  readonly contextLines: number;
  /** Matches the page has room for. */
  readonly room: number;
  readonly budget: ScanBudget;
}

/** Scans files in order until the page is full or a bound stops it. */
export function scanBatch(matcher: Matcher, programSize: number, input: BatchInput, now: () => number): BatchScan {
  const deadline = now() + input.budget.timeMs;
  const state = { bytes: 0, work: 0, started: input.budget.started, room: input.room };
  const files: FileScan[] = [];
  for (const file of input.files) {
    const scan = scanFile(matcher, programSize, file, input, state, () => now() > deadline);
    files.push(scan);
    if (scan.full || scan.stop !== null) break;
  }
  return { files, bytes: state.bytes, work: state.work };
}

interface ScanState {
  bytes: number;
  work: number;
  started: boolean;
  room: number;
}

function scanFile(matcher: Matcher, programSize: number, file: ScanFile, input: BatchInput, state: ScanState, late: () => boolean): FileScan {
  const { text, path } = file;
  const { budget, contextLines } = input;
  const matches: RawMatch[] = [];
  const skippedLines: number[] = [];
  // An empty file has no line to match (not even an empty one).
  if (text === '') return { path, matches, capped: false, full: false, stop: null, next: null, skippedLines };
  const starts = lineStarts(text);
  const from = file.from;
  const skipLine = from?.line ?? 0;
  const skipColumn = from?.column ?? 0;
  let total = from !== null && from.rescan !== true ? from.seen : 0;
  let n = from !== null && from.rescan !== true ? Math.max(0, from.line - 1) : 0;
  const stopAt = (stop: ScanStop): FileScan => ({ path, matches, capped: false, full: false, stop, next: { line: n + 1, column: 0, seen: total }, skippedLines });
  while (n < starts.length) {
    // The chunk: whole lines, up to CHUNK_CHARS and CHUNK_WORK (at least one line).
    const first = n;
    let end = first + 1;
    const spanEnd = (k: number): number => starts[k] ?? text.length;
    while (end < starts.length && spanEnd(end + 1) - (starts[first] ?? 0) <= CHUNK_CHARS && (spanEnd(end + 1) - (starts[first] ?? 0)) * programSize <= CHUNK_WORK) end++;
    const chunk = text.slice(starts[first] ?? 0, spanEnd(end));
    // Matching a chunk costs a pass over it, and a second one over the lines when it has a match.
    const work = 2 * programSize * chunk.length;
    const bytes = Buffer.byteLength(chunk, 'utf8');
    if (state.started && late()) return stopAt('time');
    if (work > GREP_LIMITS.maxScanWork && end === first + 1) {
      // One line no request could afford: left out and named, so paging goes on past it.
      skippedLines.push(first + 1);
      n = end;
      continue;
    }
    if (state.started && (state.work + work > budget.work || state.bytes + bytes > budget.bytes)) return stopAt('bytes_scanned');
    state.started = true;
    state.bytes += bytes;
    state.work += programSize * chunk.length;
    if (!matcher.test(chunk)) {
      n = end;
      continue;
    }
    state.work += programSize * chunk.length;
    for (; n < end; n++) {
      const lineNumber = n + 1;
      const line = lineAt(text, starts, n);
      // Matches before this line: what the next page carries when it resumes on this line.
      const before = total;
      for (const m of matcher.line(line)) {
        if (++total > GREP_LIMITS.maxMatchesPerFile) return { path, matches, capped: true, full: false, stop: null, next: null, skippedLines };
        if (from !== null && (lineNumber < skipLine || (lineNumber === skipLine && m.start + 1 <= skipColumn))) continue;
        if (state.room === 0) {
          // The page is full: the next one resumes on this line, after the last match shown.
          const last = matches.at(-1);
          const column = last !== undefined && last.line_number === lineNumber ? last.column_start : lineNumber === skipLine ? skipColumn : 0;
          return { path, matches, capped: false, full: true, stop: null, next: { line: lineNumber, column, seen: before }, skippedLines };
        }
        state.room--;
        const shown = window(line, m.start);
        const context = (k: number): { line_number: number; text: string } => ({ line_number: k + 1, text: window(lineAt(text, starts, k), 0).text });
        matches.push({
          line_number: lineNumber,
          column_start: m.start + 1,
          column_end: m.end + 1,
          line: shown.text,
          line_column: shown.offset + 1,
          before: range(Math.max(0, n - contextLines), n).map(context),
          after: range(n + 1, Math.min(starts.length, n + 1 + contextLines)).map(context),
        });
      }
    }
  }
  return { path, matches, capped: false, full: false, stop: null, next: null, skippedLines };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
}
