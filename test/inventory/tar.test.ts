import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TAR_LIMITS, readTarball, safeEntryPath, type TarFile, type TarLimits } from '../../src/archives/tar-reader.js';
import { makeTarball, rawTarball } from '../helpers/tarball.js';

async function read(tarball: Buffer, limits: TarLimits = DEFAULT_TAR_LIMITS) {
  const files: TarFile[] = [];
  const result = await readTarball(Readable.from([tarball]), limits, async (f) => {
    files.push(f);
  });
  return { files, ...result };
}

describe('tarball reading', () => {
  it('strips the top folder and keeps regular files byte for byte', async () => {
    const binary = Buffer.from([0, 1, 2, 255]);
    const { files, skipped } = await read(
      await makeTarball([
        { name: 'package/', type: 'directory' },
        { name: 'package/index.js', content: 'module.exports = 1;\n' },
        { name: 'package/bin/tool', content: binary },
        { name: 'package/weird name+#%.txt', content: 'x' },
      ]),
    );
    expect(files.map((f) => f.path)).toEqual(['index.js', 'bin/tool', 'weird name+#%.txt']);
    expect(files[1]?.bytes?.equals(binary)).toBe(true);
    expect(skipped).toEqual([]);
  });

  it('skips links, devices and paths escaping the root, and reports them', async () => {
    const { files, skipped } = await read(
      await makeTarball([
        { name: 'package/ok.js', content: 'ok' },
        { name: 'package/../../etc/passwd', content: 'root:x' },
        { name: '/abs/path.js', content: 'x' },
        { name: 'package/link', type: 'symlink', linkname: '/etc/passwd' },
        { name: 'package/hard', type: 'link', linkname: 'package/ok.js' },
        { name: 'package/dev', type: 'character-device' },
        { name: 'toplevel.js', content: 'x' },
      ]),
    );
    expect(files.map((f) => f.path)).toEqual(['ok.js']);
    expect(skipped).toHaveLength(6);
    expect(skipped.join('\n')).toMatch(/symlink not stored[\s\S]*link not stored[\s\S]*character-device not stored/);
  });

  it('reports non-UTF-8 names instead of crashing', async () => {
    const { files, skipped } = await read(
      rawTarball([
        { name: Buffer.from('package/caf\xe9.txt', 'latin1'), content: Buffer.from('x') },
        { name: Buffer.from('package/fine.txt'), content: Buffer.from('y') },
      ]),
    );
    expect(files.map((f) => f.path)).toEqual(['fine.txt']);
    expect(skipped[0]).toMatch(/not UTF-8/);
  });

  it('hands duplicate entries over in order (the consumer keeps the last)', async () => {
    const { files } = await read(await makeTarball([{ name: 'package/a', content: '1' }, { name: 'package/a', content: '2' }]));
    expect(files.map((f) => f.bytes?.toString())).toEqual(['1', '2']);
  });

  it('lists files over the per-file cap without their bytes', async () => {
    const { files } = await read(await makeTarball([{ name: 'package/big.bin', content: Buffer.alloc(5000, 1) }]), {
      ...DEFAULT_TAR_LIMITS,
      maxFileBytes: 4096,
    });
    expect(files).toEqual([{ path: 'big.bin', size: 5000, bytes: null }]);
  });

  it('fails a gzip bomb on its expansion ratio with memory bounded', async () => {
    const bomb = await makeTarball([{ name: 'package/zeros', content: Buffer.alloc(64 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(200_000);
    const before = process.memoryUsage().rss;
    await expect(read(bomb, { ...DEFAULT_TAR_LIMITS, maxFileBytes: 1024 })).rejects.toMatchObject({ reason: 'compression_ratio' });
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
  });

  it('fails archives over the expanded total, and garbage, cleanly', async () => {
    const big = await makeTarball([{ name: 'package/a', content: Buffer.alloc(3000, 7) }, { name: 'package/b', content: Buffer.alloc(3000, 8) }]);
    await expect(read(big, { ...DEFAULT_TAR_LIMITS, maxTotalBytes: 4096 })).rejects.toMatchObject({ reason: 'too_large' });
    await expect(read(Buffer.from('not a tarball'))).rejects.toMatchObject({ reason: 'corrupt' });
    await expect(read(gzipSync(Buffer.from('plain text, not tar')))).rejects.toMatchObject({ reason: 'corrupt' });
  });

  it('accepts only safe relative paths', () => {
    expect(safeEntryPath('package/a/b.js')).toBe('a/b.js');
    expect(safeEntryPath('./package/./a.js')).toBe('a.js');
    for (const bad of ['package/../x', '/etc/passwd', 'package/a\u0000b', 'C:/x/y', 'a.js']) expect(safeEntryPath(bad), bad).toBeNull();
  });
});
