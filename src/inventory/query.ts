import picomatch from 'picomatch';
import type { Intent } from './classify.js';
import type { Selection } from './selection.js';

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
  /** UTF-8 bytes of the path: entries are ordered by them. */
  readonly key: Buffer;
  readonly parent: string;
}

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

/** Whether a selector is a glob (picomatch's own parse) rather than a literal path. */
export function isGlob(selector: string): boolean {
  return picomatch.scan(selector).isGlob;
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

  constructor(entries: readonly StoredEntry[]) {
    const slots: Slot[] = [];
    for (const entry of entries) {
      this.files.add(entry.path);
      for (let dir = folderOf(entry); dir !== '' && !this.directories.has(dir); dir = parentOf(dir)) this.directories.add(dir);
    }
    for (const entry of entries) slots.push({ entry, key: Buffer.from(entry.path, 'utf8'), parent: folderOf(entry) });
    for (const dir of this.directories) {
      // A path can be both a page and a directory on a site (/docs and /docs/intro).
      if (!this.files.has(dir)) slots.push({ entry: { path: dir, kind: 'directory' }, key: Buffer.from(dir, 'utf8'), parent: parentOf(dir) });
    }
    slots.sort((a, b) => Buffer.compare(a.key, b.key));
    this.slots = slots;
  }

  get size(): number {
    return this.files.size;
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  get(path: string): StoredEntry | undefined {
    const i = this.lowerBound(Buffer.from(path, 'utf8'));
    const slot = this.slots[i];
    return slot?.entry.path === path && slot.entry.kind !== 'directory' ? slot.entry : undefined;
  }

  isDirectory(path: string): boolean {
    return path === '' || this.directories.has(path);
  }

  /** First slot whose key is >= the given key. */
  private lowerBound(key: Buffer): number {
    let lo = 0;
    let hi = this.slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const slot = this.slots[mid];
      if (slot && Buffer.compare(slot.key, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Up to `selection.limit` entries after `afterPath`, and whether more follow. */
  page(selection: Selection, afterPath: string | null): { entries: IndexEntry[]; hasMore: boolean } {
    const matches = this.matcher(selection);
    const start = afterPath === null ? 0 : this.upperBound(Buffer.from(afterPath, 'utf8'));
    const entries: IndexEntry[] = [];
    for (const slot of this.slots.slice(start)) {
      if (!matches(slot)) continue;
      if (entries.length === selection.limit) return { entries, hasMore: true };
      entries.push(slot.entry);
    }
    return { entries, hasMore: false };
  }

  private upperBound(key: Buffer): number {
    let i = this.lowerBound(key);
    for (let slot = this.slots[i]; slot && Buffer.compare(slot.key, key) === 0; slot = this.slots[++i]);
    return i;
  }

  private matcher(selection: Selection): (slot: Slot) => boolean {
    const literalFiles = new Set<string>();
    const childrenOf = new Set<string>();
    const leavesUnder: string[] = [];
    const globs: ((path: string) => boolean)[] = [];
    for (const selector of selection.paths) {
      if (selector !== '' && isGlob(selector)) {
        globs.push(picomatch(selector, { dot: true }));
      } else if (this.isDirectory(selector)) {
        if (selection.recursive) leavesUnder.push(selector === '' ? '' : `${selector}/`);
        else childrenOf.add(selector);
      }
      // A literal that is both a page and a directory (sites) lists itself as well.
      if (this.files.has(selector)) literalFiles.add(selector);
    }
    const fileTypes = new Set(selection.fileTypes);
    const languages = new Set(selection.languages);
    const intents = new Set<string>(selection.intents);
    const passesFilters = (entry: StoredEntry): boolean =>
      (fileTypes.size === 0 || (entry.fileType !== null && fileTypes.has(entry.fileType))) &&
      (languages.size === 0 || (entry.language !== null && languages.has(entry.language))) &&
      (intents.size === 0 || (entry.intent !== null && intents.has(entry.intent)));
    return (slot) => {
      const { entry } = slot;
      let selected = childrenOf.has(slot.parent);
      if (!selected && entry.kind !== 'directory') {
        selected =
          literalFiles.has(entry.path) ||
          leavesUnder.some((prefix) => entry.path.startsWith(prefix)) ||
          globs.some((glob) => glob(entry.path));
      }
      if (!selected) return false;
      return entry.kind === 'directory' || passesFilters(entry);
    };
  }
}
