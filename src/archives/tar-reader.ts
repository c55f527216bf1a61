import { isUtf8 } from 'node:buffer';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract as tarExtract } from 'tar-stream';

/**
 * Reads a package tarball as a stream, never touching the disk: gunzip, then tar entries one at
 * a time. Only regular files are kept; links, devices and paths escaping the root are skipped and
 * reported. Sizes are capped per file and in total, and the expansion ratio is bounded, so a
 * gzip bomb fails the read early with memory bounded by one file. Paths are bounded in length,
 * depth and the folders they imply (see PathBounds): an entry past them is skipped and reported.
 */

export interface TarLimits {
  /** Files larger than this are listed without content. */
  readonly maxFileBytes: number;
  /** Total expanded bytes of the archive. */
  readonly maxTotalBytes: number;
  /** Expanded / compressed, checked once `ratioFloorBytes` have been expanded. */
  readonly maxRatio: number;
  readonly ratioFloorBytes: number;
  readonly maxEntries: number;
  /** Longest path kept, in UTF-8 bytes; a longer one is skipped and noted. */
  readonly maxPathBytes: number;
  /** Most segments (folders and name) a kept path has; a deeper one is skipped and noted. */
  readonly maxPathDepth: number;
  /** Most distinct folders the kept paths imply; an entry adding folders past it is skipped and noted. */
  readonly maxDirectories: number;
}

export const DEFAULT_TAR_LIMITS: TarLimits = {
  maxFileBytes: 16 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
  maxRatio: 200,
  ratioFloorBytes: 8 * 1024 * 1024,
  maxEntries: 200_000,
  // Postgres refuses a primary-key entry over about 2.7 KB: a path stays below it (and within
  // the 2,048 bytes a list selector may name).
  maxPathBytes: 2_048,
  maxPathDepth: 64,
  maxDirectories: 100_000,
};

/** How much of a name a note quotes: a hostile name can be megabytes long. */
const NOTE_NAME_CHARS = 200;

/** The name as a note quotes it: at most NOTE_NAME_CHARS characters, the rest counted. */
export function noteName(name: string | null): string {
  if (name === null) return '<non-UTF-8 name>';
  return name.length <= NOTE_NAME_CHARS ? name : `${name.slice(0, NOTE_NAME_CHARS)}… (${name.length} characters)`;
}

/**
 * Holds an archive's kept paths within the path bounds: length, depth and the number of distinct
 * folders they imply. Folders are known by (parent folder, name) pairs, so an entry costs work
 * and memory linear in its path length, however deep it is (a path's ancestors written out
 * whole would cost its length times its depth).
 */
export class PathBounds {
  private readonly folders = new Map<string, number>();

  constructor(private readonly limits: Pick<TarLimits, 'maxPathBytes' | 'maxPathDepth' | 'maxDirectories'>) {}

  /** Why `path` is not kept (its folders are then not counted), or null when it is (and its folders are counted). */
  admit(path: string): string | null {
    // Characters bound bytes from below: a name of megabytes is refused before it is encoded.
    if (path.length > this.limits.maxPathBytes || Buffer.byteLength(path, 'utf8') > this.limits.maxPathBytes) {
      return `path longer than ${this.limits.maxPathBytes} bytes`;
    }
    const segments = path.split('/');
    if (segments.length > this.limits.maxPathDepth) return `path deeper than ${this.limits.maxPathDepth} segments`;
    const folderCount = segments.length - 1;
    let parent = 0;
    let depth = 0;
    for (; depth < folderCount; depth++) {
      const known = this.folders.get(`${parent}/${segments[depth] ?? ''}`);
      if (known === undefined) break;
      parent = known;
    }
    // Every folder below the first new one is new as well.
    if (this.folders.size + folderCount - depth > this.limits.maxDirectories) return `more than ${this.limits.maxDirectories} folders in the archive`;
    for (; depth < folderCount; depth++) {
      const id = this.folders.size + 1;
      this.folders.set(`${parent}/${segments[depth] ?? ''}`, id);
      parent = id;
    }
    return null;
  }
}

export interface TarFile {
  /** Path inside the package, the top folder stripped, `/`-separated. */
  readonly path: string;
  readonly size: number;
  /** The bytes, or null for a file over the per-file cap. */
  readonly bytes: Buffer | null;
}

/** Wraps a failure of the consumer so it is not mistaken for a broken archive. */
class ConsumerFailure extends Error {
  constructor(readonly error: unknown) {
    super('the consumer of the tarball failed', { cause: error });
  }
}

/** A reason the archive was refused as a whole. */
export class TarLimitError extends Error {
  constructor(
    readonly reason: 'too_large' | 'compression_ratio' | 'too_many_entries' | 'corrupt',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'TarLimitError';
  }
}

/**
 * The entry's name as text; null when its bytes are not UTF-8 (a name no read action could
 * carry). Header names arrive latin1-decoded (their raw bytes); PAX names arrive UTF-8-decoded.
 */
function decodeName(header: { name: string; pax?: Record<string, string> | null }): string | null {
  if (header.pax?.['path'] !== undefined) return header.name.includes('\uFFFD') ? null : header.name;
  const bytes = Buffer.from(header.name, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}

/**
 * How an archive's names map to package paths: `top` strips the one top folder every entry sits
 * under (npm's `package/`, a crate's or sdist's `<name>-<version>/`); `none` keeps names whole (a
 * pub archive, a gem's `data.tar.gz`, a jar); a prefix strips exactly that folder (a Go module
 * zip's `<module>@<version>/`) and refuses entries outside it.
 */
export type ArchiveRoot = 'top' | 'none' | { readonly prefix: string };

/** The path inside the package, or null when it is unsafe (absolute, `..`, control characters) or outside the root. */
export function safeEntryPath(name: string, root: ArchiveRoot = 'top'): string | null {
  // eslint-disable-next-line no-control-regex
  if (name.startsWith('/') || /[\x00-\x1f\x7f]/.test(name) || /^[A-Za-z]:/.test(name)) return null;
  let rest = name;
  if (typeof root === 'object') {
    if (!name.startsWith(root.prefix)) return null;
    rest = name.slice(root.prefix.length);
  }
  const parts = rest.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) return null;
  if (root !== 'top') return parts.length === 0 ? null : parts.join('/');
  if (parts.length < 2) return null;
  // npm packs everything under one top folder (usually `package/`): strip it, as npm does.
  return parts.slice(1).join('/');
}

export interface ArchiveOptions {
  /** The stream is gzip-compressed (default) or a plain tar. */
  readonly gzip?: boolean;
  readonly root?: ArchiveRoot;
}

export interface TarReadResult {
  readonly skipped: string[];
  readonly expandedBytes: number;
  readonly compressedBytes: number;
}

export async function readTarball(
  source: Readable,
  limits: TarLimits,
  onFile: (file: TarFile) => Promise<void>,
  options: ArchiveOptions = {},
): Promise<TarReadResult> {
  const root = options.root ?? 'top';
  let compressed = 0;
  let expanded = 0;
  const skipped: string[] = [];
  const countIn = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      compressed += chunk.length;
      callback(null, chunk);
    },
  });
  const countOut = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      expanded += chunk.length;
      if (expanded > limits.maxTotalBytes) {
        callback(new TarLimitError('too_large', `expands beyond ${limits.maxTotalBytes} bytes`));
        return;
      }
      if (expanded > limits.ratioFloorBytes && expanded / Math.max(compressed, 1) > limits.maxRatio) {
        callback(new TarLimitError('compression_ratio', `expands more than ${limits.maxRatio} times its compressed size`));
        return;
      }
      callback(null, chunk);
    },
  });
  // Names decoded as latin1 keep their raw bytes, so a non-UTF-8 name can be told apart.
  // tar-stream's typings omit this option of its extractor.
  const extractOptions: NonNullable<Parameters<typeof tarExtract>[0]> & { filenameEncoding: BufferEncoding } = {
    filenameEncoding: 'latin1',
  };
  const extract = tarExtract(extractOptions);
  const piping = options.gzip === false ? pipeline(source, countIn, countOut, extract) : pipeline(source, countIn, createGunzip(), countOut, extract);
  // The archive's own errors surface through the iterator too; the pipeline's are the real cause.
  const pipingError = piping.then(
    () => null,
    (error: unknown) => error,
  );

  const deliver = async (file: TarFile): Promise<void> => {
    try {
      await onFile(file);
    } catch (error) {
      throw new ConsumerFailure(error);
    }
  };
  let entries = 0;
  const bounds = new PathBounds(limits);
  try {
    for await (const entry of extract) {
      entries++;
      if (entries > limits.maxEntries) throw new TarLimitError('too_many_entries', `more than ${limits.maxEntries} entries`);
      const header = entry.header;
      const name = decodeName(header as typeof header & { pax?: Record<string, string> | null });
      const path = name === null ? null : safeEntryPath(name, root);
      const type = header.type;
      if (type !== 'file' && type !== 'contiguous-file') {
        if (type !== 'directory') skipped.push(`${noteName(name)}: ${type} not stored`);
        entry.resume();
        continue;
      }
      if (path === null) {
        skipped.push(`${noteName(name)}: ${name === null ? 'name is not UTF-8' : 'path outside the package'}`);
        entry.resume();
        continue;
      }
      const refused = bounds.admit(path);
      if (refused !== null) {
        skipped.push(`${noteName(path)}: ${refused}, not stored`);
        entry.resume();
        continue;
      }
      const size = header.size;
      if (size > limits.maxFileBytes) {
        entry.resume();
        await deliver({ path, size, bytes: null });
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      await deliver({ path, size, bytes: Buffer.concat(chunks) });
    }
  } catch (error) {
    source.destroy();
    const cause = await pipingError;
    if (error instanceof ConsumerFailure) throw error.error instanceof Error ? error.error : new Error('consumer failed', { cause: error.error });
    throw cause instanceof TarLimitError ? cause : error instanceof TarLimitError ? error : new TarLimitError('corrupt', 'not a readable gzip tarball');
  }
  const cause = await pipingError;
  if (cause !== null) throw cause instanceof TarLimitError ? cause : new TarLimitError('corrupt', 'not a readable gzip tarball');
  return { skipped, expandedBytes: expanded, compressedBytes: compressed };
}
