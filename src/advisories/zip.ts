import { isUtf8 } from 'node:buffer';
import { open, type FileHandle } from 'node:fs/promises';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { crc32, inflateRawSync } from 'node:zlib';
import { DEFAULT_TAR_LIMITS } from '../archives/tar-reader.js';
import { AdvisoryError } from './errors.js';
import type { SkipReason } from './osv-validate.js';

/**
 * Reads an OSV archive (`<Ecosystem>/all.zip`: one small JSON document per advisory) from a file:
 * the central directory first (ZIP64 included: npm's archive holds over 200,000 entries), then the
 * entries in file order through one read window, each inflated alone. Memory holds the directory
 * of the JSON entries, the window and one document, however large the archive; a general zip
 * reader (yauzl, src/inventory/zip-reader.ts) spends a stream and two reads per entry, which is
 * most of an import's time over hundreds of thousands of entries. The bounds are the project's
 * archive bounds (per-entry bytes, expansion ratio, every entry held to its declared size and
 * CRC), with the entry count and expanded total raised for advisory dumps.
 */

export interface AdvisoryArchiveLimits {
  /** A larger entry is skipped and counted (`too_large`); no OSV document comes near it. */
  readonly maxEntryBytes: number;
  /** Expanded bytes of one archive: past it the archive is refused (`archive_limit`). */
  readonly maxTotalBytes: number;
  readonly maxEntries: number;
  /** Expanded / compressed, checked once `ratioFloorBytes` have been expanded. */
  readonly maxRatio: number;
  readonly ratioFloorBytes: number;
  /** Compressed bytes a sync downloads at most. */
  readonly maxArchiveBytes: number;
}

export const ADVISORY_ARCHIVE_LIMITS: AdvisoryArchiveLimits = {
  maxEntryBytes: DEFAULT_TAR_LIMITS.maxFileBytes,
  maxTotalBytes: 8 * 1024 * 1024 * 1024,
  maxEntries: 2_000_000,
  maxRatio: DEFAULT_TAR_LIMITS.maxRatio,
  ratioFloorBytes: DEFAULT_TAR_LIMITS.ratioFloorBytes,
  maxArchiveBytes: 2 * 1024 * 1024 * 1024,
};

/** One JSON entry of an archive: its bytes, or why it was not read. */
export type ArchiveEntry =
  | { readonly name: string; readonly bytes: Buffer }
  | { readonly name: string; readonly skipped: SkipReason; readonly detail: string };

export interface ArchiveReadResult {
  /** JSON entries handed to the consumer (read or skipped). */
  readonly entries: number;
  readonly expandedBytes: number;
}

interface DirectoryEntry {
  readonly name: string;
  readonly flags: number;
  readonly method: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly offset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const U32 = 0xffffffff;
const WINDOW_BYTES = 4 * 1024 * 1024;
/** Entries handed over between two turns of the event loop (queue locks, health checks keep running). */
const ENTRIES_PER_TURN = 256;

class ZipFormatError extends Error {}

/** Reads at offsets of a file through one window, so that consecutive small reads cost one system call. */
class WindowReader {
  private window = Buffer.alloc(0);
  private start = 0;

  constructor(
    private readonly file: FileHandle,
    readonly size: number,
  ) {}

  async read(offset: number, length: number): Promise<Buffer> {
    if (offset < 0 || length < 0 || offset + length > this.size) throw new ZipFormatError(`a read past the end of the archive (offset ${offset})`);
    if (offset >= this.start && offset + length <= this.start + this.window.length) return this.window.subarray(offset - this.start, offset - this.start + length);
    const span = Math.min(Math.max(length, WINDOW_BYTES), this.size - offset);
    const buffer = Buffer.allocUnsafe(span);
    const { bytesRead } = await this.file.read(buffer, 0, span, offset);
    if (bytesRead < length) throw new ZipFormatError('the archive ended early');
    this.window = buffer.subarray(0, bytesRead);
    this.start = offset;
    return this.window.subarray(0, length);
  }
}

/** Where the central directory is, and how many entries it lists. */
async function findDirectory(reader: WindowReader): Promise<{ offset: number; size: number; count: number }> {
  const tail = Math.min(reader.size, 22 + 0xffff);
  const end = Buffer.from(await reader.read(reader.size - tail, tail));
  let at = -1;
  for (let i = end.length - 22; i >= 0; i--) {
    if (end.readUInt32LE(i) === EOCD) {
      at = i;
      break;
    }
  }
  if (at < 0) throw new ZipFormatError('no end of central directory record');
  let count = end.readUInt16LE(at + 10);
  let size = end.readUInt32LE(at + 12);
  let offset = end.readUInt32LE(at + 16);
  if (count === 0xffff || size === U32 || offset === U32) {
    const locatorAt = reader.size - tail + at - 20;
    const locator = locatorAt >= 0 ? await reader.read(locatorAt, 20) : null;
    if (locator === null || locator.readUInt32LE(0) !== ZIP64_LOCATOR) throw new ZipFormatError('no ZIP64 end of central directory locator');
    const record = await reader.read(Number(locator.readBigUInt64LE(8)), 56);
    if (record.readUInt32LE(0) !== ZIP64_EOCD) throw new ZipFormatError('no ZIP64 end of central directory record');
    count = Number(record.readBigUInt64LE(32));
    size = Number(record.readBigUInt64LE(40));
    offset = Number(record.readBigUInt64LE(48));
  }
  if (offset + size > reader.size) throw new ZipFormatError('the central directory lies past the end of the archive');
  return { offset, size, count };
}

/** The `*.json` entries the central directory lists, in file order. */
function parseDirectory(directory: Buffer, count: number): DirectoryEntry[] {
  const entries: DirectoryEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > directory.length || directory.readUInt32LE(at) !== CENTRAL) throw new ZipFormatError('a malformed central directory');
    const flags = directory.readUInt16LE(at + 8);
    const method = directory.readUInt16LE(at + 10);
    const crc = directory.readUInt32LE(at + 16);
    let compressedSize = directory.readUInt32LE(at + 20);
    let size = directory.readUInt32LE(at + 24);
    const nameLength = directory.readUInt16LE(at + 28);
    const extraLength = directory.readUInt16LE(at + 30);
    const commentLength = directory.readUInt16LE(at + 32);
    let offset = directory.readUInt32LE(at + 42);
    const next = at + 46 + nameLength + extraLength + commentLength;
    if (next > directory.length) throw new ZipFormatError('a malformed central directory');
    const rawName = directory.subarray(at + 46, at + 46 + nameLength);
    // ZIP64: the sizes and offset that do not fit 32 bits are in the extended information field, in this order.
    if (size === U32 || compressedSize === U32 || offset === U32) {
      const extra = directory.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength);
      for (let e = 0; e + 4 <= extra.length; ) {
        const id = extra.readUInt16LE(e);
        const length = extra.readUInt16LE(e + 2);
        if (id === 0x0001) {
          let field = e + 4;
          const take = (): number => {
            if (field + 8 > e + 4 + length) throw new ZipFormatError('a truncated ZIP64 field');
            const value = Number(extra.readBigUInt64LE(field));
            field += 8;
            return value;
          };
          if (size === U32) size = take();
          if (compressedSize === U32) compressedSize = take();
          if (offset === U32) offset = take();
          break;
        }
        e += 4 + length;
      }
    }
    at = next;
    if (!isUtf8(rawName)) continue;
    const name = rawName.toString('utf8').replace(/\\/g, '/');
    if (name.endsWith('/') || !name.toLowerCase().endsWith('.json')) continue;
    entries.push({ name, flags, method, crc, compressedSize, size, offset });
  }
  return entries.sort((a, b) => a.offset - b.offset);
}

/** An entry's bytes: its local header skipped, inflated within its declared size, CRC checked. */
async function contentOf(reader: WindowReader, entry: DirectoryEntry): Promise<Buffer> {
  const header = await reader.read(entry.offset, 30);
  if (header.readUInt32LE(0) !== LOCAL) throw new ZipFormatError(`${entry.name}: no local header`);
  const dataAt = entry.offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  const data = await reader.read(dataAt, entry.compressedSize);
  let bytes: Buffer;
  if (entry.method === 0) {
    bytes = Buffer.from(data);
  } else {
    try {
      // One byte over the declared size is enough to know the entry lies about it.
      bytes = inflateRawSync(data, { maxOutputLength: Math.max(1, entry.size + 1) });
    } catch (error) {
      throw new ZipFormatError(`${entry.name}: ${error instanceof Error ? error.message : 'does not inflate'}`);
    }
  }
  if (bytes.length !== entry.size) throw new ZipFormatError(`${entry.name}: ${bytes.length} bytes where the directory says ${entry.size}`);
  if (crc32(bytes) !== entry.crc) throw new ZipFormatError(`${entry.name}: CRC mismatch`);
  return bytes;
}

/** Bytes of central directory read at most: past it the archive is refused (a directory of 2 million entries with long names stays far below). */
const MAX_DIRECTORY_BYTES = 512 * 1024 * 1024;

/**
 * Hands every `*.json` entry of the zip at `path` to `onEntry`, in file order, waiting for it
 * before the next is read. Other entries (folders, a README) are passed over. Throws an
 * AdvisoryError `corrupt_archive` or `archive_limit`; a failure of `onEntry` is rethrown as is.
 */
export async function readAdvisoryZip(path: string, limits: AdvisoryArchiveLimits, onEntry: (entry: ArchiveEntry) => Promise<void>): Promise<ArchiveReadResult> {
  const file = await open(path, 'r');
  try {
    const reader = new WindowReader(file, (await file.stat()).size);
    let entries: DirectoryEntry[];
    try {
      const directory = await findDirectory(reader);
      if (directory.count > limits.maxEntries) throw new AdvisoryError('archive_limit', `${path} has more than ${limits.maxEntries} entries`);
      if (directory.size > MAX_DIRECTORY_BYTES) throw new AdvisoryError('archive_limit', `${path} has a central directory over ${MAX_DIRECTORY_BYTES} bytes`);
      entries = parseDirectory(Buffer.from(await reader.read(directory.offset, directory.size)), directory.count);
    } catch (error) {
      if (error instanceof ZipFormatError) throw new AdvisoryError('corrupt_archive', `${path} is not a readable zip archive (${error.message})`, { cause: error });
      throw error;
    }
    let expanded = 0;
    let handed = 0;
    for (const entry of entries) {
      if (++handed % ENTRIES_PER_TURN === 0) await yieldToLoop();
      if ((entry.flags & 1) !== 0 || (entry.method !== 0 && entry.method !== 8)) {
        await onEntry({ name: entry.name, skipped: 'unsupported_entry', detail: `${entry.name}: encrypted or compression method ${entry.method}` });
        continue;
      }
      if (entry.size > limits.maxEntryBytes) {
        await onEntry({ name: entry.name, skipped: 'too_large', detail: `${entry.name}: ${entry.size} bytes, over ${limits.maxEntryBytes}` });
        continue;
      }
      if (expanded + entry.size > limits.maxTotalBytes) throw new AdvisoryError('archive_limit', `${path} expands beyond ${limits.maxTotalBytes} bytes`);
      let bytes: Buffer;
      try {
        bytes = await contentOf(reader, entry);
      } catch (error) {
        if (error instanceof ZipFormatError) throw new AdvisoryError('corrupt_archive', `${path} is not a readable zip archive (${error.message})`, { cause: error });
        throw error;
      }
      expanded += bytes.length;
      if (expanded > limits.ratioFloorBytes && expanded / Math.max(reader.size, 1) > limits.maxRatio) {
        throw new AdvisoryError('archive_limit', `${path} expands more than ${limits.maxRatio} times its compressed size`);
      }
      await onEntry({ name: entry.name, bytes });
    }
    return { entries: entries.length, expandedBytes: expanded };
  } finally {
    await file.close();
  }
}
