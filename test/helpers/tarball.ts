import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

export interface TarEntry {
  /** Full name inside the archive (include the top folder, e.g. `package/index.js`). */
  readonly name: string;
  readonly content?: string | Buffer;
  readonly type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device';
  readonly linkname?: string;
}

/** A gzipped tarball with exactly these entries, in this order (hostile ones included). */
export async function makeTarball(entries: readonly TarEntry[]): Promise<Buffer> {
  return gzipSync(await makeTar(entries));
}

/** A plain (uncompressed) tar with exactly these entries, in this order. */
export async function makeTar(entries: readonly TarEntry[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    archive.on('end', () => resolve());
    archive.on('error', reject);
  });
  for (const entry of entries) {
    const type = entry.type ?? 'file';
    const content = typeof entry.content === 'string' ? Buffer.from(entry.content, 'utf8') : (entry.content ?? Buffer.alloc(0));
    await new Promise<void>((resolve, reject) =>
      archive.entry(
        { name: entry.name, type, size: type === 'file' ? content.length : 0, ...(entry.linkname ? { linkname: entry.linkname } : {}) },
        type === 'file' ? content : '',
        (error?: Error | null) => (error ? reject(error) : resolve()),
      ),
    );
  }
  archive.finalize();
  await done;
  return Buffer.concat(chunks);
}

/**
 * A gzipped tar written header by header, for names whose raw bytes are not UTF-8 (which
 * tar-stream, rightly, never writes).
 */
export function rawTarball(entries: readonly { name: Buffer; content: Buffer }[]): Buffer {
  const blocks: Buffer[] = [];
  for (const { name, content } of entries) {
    const header = Buffer.alloc(512);
    name.copy(header, 0, 0, 100);
    header.write('0000644\0', 100, 'ascii');
    header.write('0000000\0', 108, 'ascii');
    header.write('0000000\0', 116, 'ascii');
    header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
    header.write('00000000000\0', 136, 'ascii');
    header.write('        ', 148, 'ascii');
    header.write('0', 156, 'ascii');
    header.write('ustar\0', 257, 'ascii');
    header.write('00', 263, 'ascii');
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    blocks.push(header, content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** A package tarball from a map of paths (under `package/`) to contents. */
export function packageTarball(files: Record<string, string | Buffer>): Promise<Buffer> {
  return makeTarball(Object.entries(files).map(([path, content]) => ({ name: `package/${path}`, content })));
}
