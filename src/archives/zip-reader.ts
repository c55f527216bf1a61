import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { noteName, PathBounds, safeEntryPath, TarLimitError, type ArchiveRoot, type TarFile, type TarLimits, type TarReadResult } from './tar-reader.js';

/**
 * Reads a zip archive (a Go module zip, a jar, a `.nupkg`, a Composer dist, a wheel) by its
 * central directory with yauzl, from the downloaded bytes, never touching the disk. The bounds
 * are those of tarballs: the entry count and the declared expanded sizes are checked before any
 * entry is inflated (yauzl then holds every entry to its declared size), files over the per-file
 * cap are listed without content, and links, encrypted entries, unsafe and non-UTF-8 names and
 * paths past the path bounds are skipped and reported.
 */

function openZip(bytes: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    // Names stay raw bytes (decodeStrings off) so an unsafe name is skipped, not fatal to the archive.
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true }, (error, zip) => {
      if (error !== null) reject(error);
      else resolve(zip);
    });
  });
}

/** Every central-directory entry, in archive order. */
function entriesOf(zip: ZipFile, max: number): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', reject);
    if (zip.entryCount > max) reject(new TarLimitError('too_many_entries', `more than ${max} entries`));
    else zip.readEntry();
  });
}

function contentOf(zip: ZipFile, entry: Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream: Readable | undefined) => {
      if (error !== null || stream === undefined) {
        reject(error ?? new Error('no stream'));
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('end', () => resolve(Buffer.concat(chunks)));
      stream.once('error', reject);
    });
  });
}

/** The entry's name as text: UTF-8 (flagged or not); null for other encodings no read action could carry. */
function nameOf(entry: Entry): string | null {
  const raw = entry.fileName as unknown as Buffer;
  if (!isUtf8(raw)) return null;
  // Zip names use `/`; some Windows tools wrote `\`.
  return raw.toString('utf8').replace(/\\/g, '/');
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** `top` strips the top folder only when every entry sits under the same one (a GitHub zipball's `<owner>-<repo>-<sha>/`). */
function effectiveRoot(names: readonly string[], root: ArchiveRoot): ArchiveRoot {
  if (root !== 'top') return root;
  const tops = new Set(names.map((n) => (n.includes('/') ? n.slice(0, n.indexOf('/')) : null)));
  return tops.size === 1 && !tops.has(null) ? 'top' : 'none';
}

export async function readZip(bytes: Buffer, limits: TarLimits, onFile: (file: TarFile) => Promise<void>, root: ArchiveRoot = 'none'): Promise<TarReadResult> {
  let zip: ZipFile;
  let entries: Entry[];
  try {
    zip = await openZip(bytes);
    entries = await entriesOf(zip, limits.maxEntries);
  } catch (error) {
    throw error instanceof TarLimitError ? error : new TarLimitError('corrupt', 'not a readable zip archive');
  }
  try {
    const skipped: string[] = [];
    const files: { entry: Entry; name: string }[] = [];
    let declared = 0;
    for (const entry of entries) {
      const name = nameOf(entry);
      if (name === null) {
        skipped.push('<non-UTF-8 name>: name is not UTF-8');
        continue;
      }
      if (name.endsWith('/')) continue;
      if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) {
        skipped.push(`${noteName(name)}: symlink not stored`);
        continue;
      }
      if (entry.isEncrypted()) {
        skipped.push(`${noteName(name)}: encrypted, not stored`);
        continue;
      }
      declared += entry.uncompressedSize;
      files.push({ entry, name });
    }
    if (declared > limits.maxTotalBytes) throw new TarLimitError('too_large', `expands beyond ${limits.maxTotalBytes} bytes`);
    if (declared > limits.ratioFloorBytes && declared / Math.max(bytes.length, 1) > limits.maxRatio) {
      throw new TarLimitError('compression_ratio', `expands more than ${limits.maxRatio} times its compressed size`);
    }
    const rooted = effectiveRoot(
      files.map((f) => f.name),
      root,
    );
    let expanded = 0;
    const bounds = new PathBounds(limits);
    for (const { entry, name } of files) {
      const path = safeEntryPath(name, rooted);
      if (path === null) {
        skipped.push(`${noteName(name)}: path outside the package`);
        continue;
      }
      const refused = bounds.admit(path);
      if (refused !== null) {
        skipped.push(`${noteName(path)}: ${refused}, not stored`);
        continue;
      }
      const size = entry.uncompressedSize;
      if (size > limits.maxFileBytes) {
        await onFile({ path, size, bytes: null });
        continue;
      }
      if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
        skipped.push(`${noteName(name)}: compression method ${entry.compressionMethod} not supported`);
        continue;
      }
      let content: Buffer;
      try {
        content = await contentOf(zip, entry);
      } catch (error) {
        throw new TarLimitError('corrupt', `not a readable zip archive (${noteName(name)})`, { cause: error });
      }
      expanded += content.length;
      await onFile({ path, size: content.length, bytes: content });
    }
    return { skipped, expandedBytes: expanded, compressedBytes: bytes.length };
  } finally {
    zip.close();
  }
}
