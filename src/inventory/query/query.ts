import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { DomainError } from '../../errors.js';
import type { Intent } from './classify.js';
import { compileGlob, GlobError, isGlob, type GlobMatcher } from './glob.js';
import type { Selection } from './selection.js';

/**
 * Work a selection's globs may do over one request's walk: the sum, over the paths tested, of
 * the path's length times the globs' program size (RE2 runs in time proportional to both). A
 * glob of a few instructions (a file suffix under any folder) tests hundreds of thousands of paths within it; a
 * hostile one of 2,000 instructions over long paths stops at about a second of CPU.
 */
export const MAX_GLOB_WORK = 200_000_000;

/** A walk yields to the event loop after this much time, so other requests and probes answer meanwhile. */
const SLICE_MS = 8;

/** The selection's globs would take more than `MAX_GLOB_WORK` over this inventory. */
export class GlobWorkExceededError extends DomainError {
  constructor(readonly tested: number) {
    super(
      'VALIDATION_ERROR',
      `paths: the globs would take more than ${MAX_GLOB_WORK} steps (path characters × glob instructions) over this inventory, stopped after ${tested} paths; ` +
        'select a directory, or use simpler globs.',
    );
    this.name = 'GlobWorkExceededError';
  }
}

/** Paces a long synchronous walk: every 8 steps, yields to the event loop once a slice is spent. */
class Pacer {
  private steps = 0;
  private sliceStart = performance.now();

  async step(): Promise<void> {
    if ((++this.steps & 7) !== 0 || performance.now() - this.sliceStart < SLICE_MS) return;
    await yieldToLoop();
    this.sliceStart = performance.now();
  }
}

/** A file or page of an inventory, as stored. */
export interface StoredEntry {
  readonly path: string;
  readonly kind: 'file' | 'page';
  readonly byteSize: number | null;
  readonly lineCount: number | null;
  readonly contentHash: string | null;
  readonly language: string | null;
  readonly fileType: string | null;
  readonly intent: Intent | null;
  readonly title: string | null;
}

/** A listed entry: a stored one, or a directory derived from the paths. */
export type IndexEntry = StoredEntry | { readonly path: string; readonly kind: 'directory' };

interface Slot {
  readonly entry: IndexEntry;
  /**
   * UTF-8 bytes of the path: entries are ordered by them, a directory right after a file or page
   * of the same path (as if its key ended in NUL; paths never contain NUL). A directory's key is a
   * view into a descendant's, so deep paths cost no copy of each ancestor.
   */
  readonly key: Buffer;
  readonly directory: boolean;
  readonly parent: string;
}

/** A keyset position: a slot's key and whether it is a directory's. */
interface Position {
  readonly key: Buffer;
  readonly directory: boolean;
}

function compareSlots(a: Position, b: Position): number {
  return Buffer.compare(a.key, b.key) || Number(a.directory) - Number(b.directory);
}

/** The cursor text of a slot: the path; a directory's path followed by NUL (paths never contain NUL). */
function positionText(slot: Slot): string {
  return slot.directory ? `${slot.entry.path}\u0000` : slot.entry.path;
}

function positionOf(text: string): Position {
  const directory = text.endsWith('\u0000');
  return { key: Buffer.from(directory ? text.slice(0, -1) : text, 'utf8'), directory };
}

/** Rough bytes a file slot and a directory slot hold (objects, strings, keys), for the catalog's byte bound. */
const FILE_SLOT_BYTES = 480;
const DIRECTORY_SLOT_BYTES = 240;

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/** The folder an entry sits in; a page's query bytes (`search?q=a/b`) are not folders. */
function folderOf(entry: StoredEntry): string {
  if (entry.kind !== 'page') return parentOf(entry.path);
  const query = entry.path.indexOf('?');
  return parentOf(query === -1 ? entry.path : entry.path.slice(0, query));
}

export { isGlob };

const GLOB_SYNTAX = /[\\*?[\]{}()!+@|]/g;

/**
 * A selector that names exactly `path`: the path itself, or (when the path reads as a glob, like
 * Next.js's `app/[slug]`) the path with its glob syntax backslash-escaped, so the selector's glob
 * reading cannot add the files it would match (`app/s`, `app/l`…).
 */
export function exactSelector(path: string): string {
  return isGlob(path) ? path.replace(GLOB_SYNTAX, '\\$&') : path;
}

function unescapeSelector(selector: string): string {
  return selector.replace(/\\(.)/gs, '$1');
}

/**
 * The selection engine over one inventory snapshot, held in memory in byte order of path.
 * `paths` is a union: a literal directory lists its immediate children (its leaves when
 * `recursive`), a literal file lists itself, a glob lists the files it matches (dotfiles
 * included). Filters keep files and pages whose type, language and intent are each in their
 * filter (union within one filter, intersection across filters); directories are navigation
 * and are never filtered out. Pages are keyset-paginated by path.
 */
export class InventoryIndex {
  private readonly slots: Slot[];
  private readonly files = new Set<string>();
  private readonly directories = new Set<string>();
  /** Rough bytes held (see FILE_SLOT_BYTES): what the catalog bounds. */
  readonly bytes: number;

  constructor(entries: readonly StoredEntry[]) {
    const slots: Slot[] = [];
    let bytes = 0;
    for (const entry of entries) {
      this.files.add(entry.path);
      const key = Buffer.from(entry.path, 'utf8');
      const parent = folderOf(entry);
      slots.push({ entry, key, directory: false, parent });
      bytes += FILE_SLOT_BYTES + 2 * entry.path.length;
      // Ancestors are prefixes of the path: slices of its string and views of its key, each found
      // once (the walk stops at the first known one).
      for (let dir = parent; dir !== '' && !this.directories.has(dir); dir = parentOf(dir)) {
        this.directories.add(dir);
        slots.push({ entry: { path: dir, kind: 'directory' }, key: key.subarray(0, Buffer.byteLength(dir, 'utf8')), directory: true, parent: parentOf(dir) });
        bytes += DIRECTORY_SLOT_BYTES;
      }
    }
    // A path can be both a page and a directory on a site (/docs and /docs/intro): both are listed.
    slots.sort(compareSlots);
    this.slots = slots;
    this.bytes = bytes;
  }

  get size(): number {
    return this.files.size;
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  get(path: string): StoredEntry | undefined {
    const i = this.lowerBound({ key: Buffer.from(path, 'utf8'), directory: false });
    const slot = this.slots[i];
    return slot?.entry.path === path && slot.entry.kind !== 'directory' ? slot.entry : undefined;
  }

  isDirectory(path: string): boolean {
    return path === '' || this.directories.has(path);
  }

  /** First slot at or after the given position. */
  private lowerBound(position: Position): number {
    let lo = 0;
    let hi = this.slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const slot = this.slots[mid];
      if (slot && compareSlots(slot, position) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Up to `selection.limit` entries after the keyset position `after`, whether more follow, and
   * the position of the last entry (what a cursor keeps).
   */
  async page(selection: Selection, after: string | null): Promise<{ entries: IndexEntry[]; hasMore: boolean; last: string | null }> {
    const matches = this.matcher(selection);
    const start = after === null ? 0 : this.upperBound(positionOf(after));
    const entries: IndexEntry[] = [];
    let last: string | null = null;
    const pacer = new Pacer();
    for (let i = start; i < this.slots.length; i++) {
      await pacer.step();
      const slot = this.slots[i];
      if (slot === undefined || !matches(slot)) continue;
      if (entries.length === selection.limit) return { entries, hasMore: true, last };
      entries.push(slot.entry);
      last = positionText(slot);
    }
    return { entries, hasMore: false, last };
  }

  /**
   * The files and pages `selection` selects (directories are never selected), in byte order of
   * path, from `from` on (inclusive); what grep and compare walk.
   */
  async selectedFiles(selection: Selection, from: string | null = null): Promise<StoredEntry[]> {
    const matches = this.matcher(selection);
    const out: StoredEntry[] = [];
    const pacer = new Pacer();
    for (let i = from === null ? 0 : this.lowerBound(positionOf(from)); i < this.slots.length; i++) {
      await pacer.step();
      const slot = this.slots[i];
      if (slot === undefined || slot.entry.kind === 'directory' || !matches(slot)) continue;
      out.push(slot.entry);
    }
    return out;
  }

  /** File and page slots by content hash, made on first use (grep maps the index's answer back to paths). */
  private byHash: Map<string, Slot[]> | null = null;

  /**
   * The files and pages with one of `hashes` that `selection` selects, in byte order of path, from
   * `from` on (inclusive): `selectedFiles` for a few contents, without walking the whole snapshot.
   */
  async selectedWithContent(selection: Selection, hashes: Iterable<string>, from: string | null = null): Promise<StoredEntry[]> {
    if (this.byHash === null) {
      this.byHash = new Map();
      for (const slot of this.slots) {
        const hash = slot.entry.kind === 'directory' ? null : slot.entry.contentHash;
        if (hash === null) continue;
        const list = this.byHash.get(hash);
        if (list) list.push(slot);
        else this.byHash.set(hash, [slot]);
      }
    }
    const matches = this.matcher(selection);
    const fromKey = from === null ? null : Buffer.from(from, 'utf8');
    const picked: Slot[] = [];
    const pacer = new Pacer();
    for (const hash of hashes) {
      for (const slot of this.byHash.get(hash) ?? []) {
        await pacer.step();
        if ((fromKey === null || Buffer.compare(slot.key, fromKey) >= 0) && matches(slot)) picked.push(slot);
      }
    }
    picked.sort((a, b) => Buffer.compare(a.key, b.key));
    return picked.map((slot) => slot.entry).filter((e): e is StoredEntry => e.kind !== 'directory');
  }

  /** The existing path a selector names: itself, or its unescaped form (see exactSelector). */
  private literal(selector: string): string | null {
    if (this.isDirectory(selector) || this.files.has(selector)) return selector;
    if (!selector.includes('\\')) return null;
    const unescaped = unescapeSelector(selector);
    return this.isDirectory(unescaped) || this.files.has(unescaped) ? unescaped : null;
  }

  private upperBound(position: Position): number {
    let i = this.lowerBound(position);
    for (let slot = this.slots[i]; slot && compareSlots(slot, position) === 0; slot = this.slots[++i]);
    return i;
  }

  private matcher(selection: Selection): (slot: Slot) => boolean {
    const literalFiles = new Set<string>();
    const childrenOf = new Set<string>();
    const leavesUnder: string[] = [];
    const globs: GlobMatcher[] = [];
    let programSize = 0;
    for (const selector of selection.paths) {
      // A selector naming an existing path is that path, and a glob as well: `app/[slug]` lists
      // the directory `app/[slug]` and any file its glob reading matches.
      const literal = this.literal(selector);
      if (literal !== null && this.isDirectory(literal)) {
        if (selection.recursive) leavesUnder.push(literal === '' ? '' : `${literal}/`);
        else childrenOf.add(literal);
      }
      // A path that is both a page and a directory (sites: /guide and /guide/intro) selects the
      // directory, so its browse action lists exactly its children; the page is listed beside it.
      if (literal !== null && this.files.has(literal) && !this.isDirectory(literal)) literalFiles.add(literal);
      if (selector !== '' && isGlob(selector)) {
        try {
          const glob = compileGlob(selector);
          globs.push(glob.match);
          programSize += glob.programSize;
        } catch (error) {
          // parseSelection refuses such a selector; one that reaches here otherwise matches nothing.
          if (!(error instanceof GlobError)) throw error;
        }
      }
    }
    const fileTypes = new Set(selection.fileTypes);
    const languages = new Set(selection.languages);
    const intents = new Set<string>(selection.intents);
    const passesFilters = (entry: StoredEntry): boolean =>
      (fileTypes.size === 0 || (entry.fileType !== null && fileTypes.has(entry.fileType))) &&
      (languages.size === 0 || (entry.language !== null && languages.has(entry.language))) &&
      (intents.size === 0 || (entry.intent !== null && intents.has(entry.intent)));
    let work = 0;
    let tested = 0;
    const globbed = (path: string): boolean => {
      if (globs.length === 0) return false;
      work += path.length * programSize;
      if (work > MAX_GLOB_WORK) throw new GlobWorkExceededError(tested);
      tested++;
      return globs.some((glob) => glob(path));
    };
    return (slot) => {
      const { entry } = slot;
      let selected = childrenOf.has(slot.parent);
      if (!selected && entry.kind !== 'directory') {
        selected =
          literalFiles.has(entry.path) ||
          leavesUnder.some((prefix) => entry.path.startsWith(prefix)) ||
          globbed(entry.path);
      }
      if (!selected) return false;
      return entry.kind === 'directory' || passesFilters(entry);
    };
  }
}
