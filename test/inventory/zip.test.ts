import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readArchive, tarMembers } from '../../src/ecosystems/shared/archive.js';
import { DEFAULT_TAR_LIMITS, readTarball, safeEntryPath, TarLimitError, type ArchiveRoot, type TarFile, type TarLimits } from '../../src/archives/tar-reader.js';
import { readZip } from '../../src/archives/zip-reader.js';
import { makeTar, makeTarball } from '../helpers/tarball.js';
import { makeZip } from '../helpers/zip.js';
import yazl from 'yazl';

async function read(zip: Buffer, limits: TarLimits = DEFAULT_TAR_LIMITS, root: ArchiveRoot = 'none') {
  const files: TarFile[] = [];
  const result = await readZip(zip, limits, async (f) => {
    files.push(f);
  }, root);
  return { files, ...result };
}

/** Replaces every occurrence of a placeholder in the archive's bytes (local header and central directory). */
function patched(zip: Buffer, from: string, to: Buffer): Buffer {
  const needle = Buffer.from(from, 'utf8');
  expect(to.length).toBe(needle.length);
  const out = Buffer.from(zip);
  for (let i = out.indexOf(needle); i !== -1; i = out.indexOf(needle, i + 1)) to.copy(out, i);
  return out;
}

function symlinkZip(): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from('/etc/passwd'), 'link', { mode: 0o120777 });
  zip.addBuffer(Buffer.from('real\n'), 'real.txt');
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.once('end', () => resolve(Buffer.concat(chunks)));
  });
}

describe('zip reading', () => {
  it('keeps files byte for byte under the root asked for, and skips what is unsafe with a reason', async () => {
    const binary = Buffer.from([0, 1, 2, 255]);
    const zip = await makeZip({ 'a/index.js': 'x\n', 'a/bin/tool': binary, 'a/weird name+#%.txt': 'w', 'a/XX/evil.txt': 'e' });
    const { files, skipped } = await read(patched(zip, 'XX/evil', Buffer.from('../evil')), DEFAULT_TAR_LIMITS, 'top');
    expect(files.map((f) => f.path)).toEqual(['index.js', 'bin/tool', 'weird name+#%.txt']);
    expect(files[1]?.bytes?.equals(binary)).toBe(true);
    expect(skipped).toEqual(['a/../evil.txt: path outside the package']);
    // `top` strips nothing when the entries do not share one folder; a prefix refuses what lies outside it.
    expect((await read(await makeZip({ 'a/x': '1', 'b/y': '2' }), DEFAULT_TAR_LIMITS, 'top')).files.map((f) => f.path)).toEqual(['a/x', 'b/y']);
    const prefixed = await read(await makeZip({ 'm@v1/x.go': '1', 'other/y.go': '2' }), DEFAULT_TAR_LIMITS, { prefix: 'm@v1/' });
    expect(prefixed.files.map((f) => f.path)).toEqual(['x.go']);
    expect(prefixed.skipped).toEqual(['other/y.go: path outside the package']);
  });

  it('skips symlinks and names that are not UTF-8, and reads Windows separators as folders', async () => {
    const links = await read(await symlinkZip());
    expect(links.files.map((f) => f.path)).toEqual(['real.txt']);
    expect(links.skipped).toEqual(['link: symlink not stored']);
    const latin = await read(patched(await makeZip({ 'caf#.txt': 'c', 'ok.txt': 'o' }), 'caf#', Buffer.from([0x63, 0x61, 0x66, 0xe9])));
    expect(latin.files.map((f) => f.path)).toEqual(['ok.txt']);
    expect(latin.skipped).toEqual(['<non-UTF-8 name>: name is not UTF-8']);
    const windows = await read(patched(await makeZip({ 'dir/file.txt': 'w' }), 'dir/', Buffer.from('dir\\')));
    expect(windows.files.map((f) => f.path)).toEqual(['dir/file.txt']);
  });

  it('refuses archives beyond the entry count, the expanded size or the ratio before inflating, and lists big files without content', async () => {
    const many = await makeZip(Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}.txt`, 'x'])));
    await expect(read(many, { ...DEFAULT_TAR_LIMITS, maxEntries: 5 })).rejects.toMatchObject({ reason: 'too_many_entries' });
    const zeros = await makeZip({ 'zeros.bin': Buffer.alloc(4 * 1024 * 1024) });
    await expect(read(zeros, { ...DEFAULT_TAR_LIMITS, maxTotalBytes: 1024 * 1024 })).rejects.toMatchObject({ reason: 'too_large' });
    await expect(read(zeros, { ...DEFAULT_TAR_LIMITS, ratioFloorBytes: 1024, maxRatio: 50 })).rejects.toMatchObject({ reason: 'compression_ratio' });
    const big = await read(zeros, { ...DEFAULT_TAR_LIMITS, maxFileBytes: 1024 });
    expect(big.files).toEqual([{ path: 'zeros.bin', size: 4 * 1024 * 1024, bytes: null }]);
  });

  it('refuses bytes that are not a zip as corrupt', async () => {
    const zip = await makeZip({ 'a.txt': 'a'.repeat(1000) });
    await expect(read(Buffer.concat([Buffer.from('PK'), Buffer.alloc(100, 7)]))).rejects.toBeInstanceOf(TarLimitError);
    // A central directory that promises more than the entry holds.
    const truncated = Buffer.concat([zip.subarray(0, 40), zip.subarray(zip.length - 200)]);
    await expect(read(truncated)).rejects.toMatchObject({ reason: 'corrupt' });
  });
});

describe('archive formats by content', () => {
  it('reads zip, gzip tar and plain tar alike, and finds the members of an outer tar', async () => {
    const names = async (bytes: Buffer, root: ArchiveRoot) => {
      const seen: string[] = [];
      await readArchive(bytes, DEFAULT_TAR_LIMITS, async (f) => void seen.push(f.path), root);
      return seen;
    };
    expect(await names(await makeZip({ 'lib/a.dart': 'a' }), 'none')).toEqual(['lib/a.dart']);
    expect(await names(await makeTarball([{ name: 'lib/a.dart', content: 'a' }]), 'none')).toEqual(['lib/a.dart']);
    expect(await names(await makeTar([{ name: 'pkg-1/lib/a.dart', content: 'a' }]), 'top')).toEqual(['lib/a.dart']);
    const outer = await makeTar([
      { name: 'VERSION', content: '3' },
      { name: 'contents.tar.gz', content: Buffer.alloc(64, 1) },
    ]);
    const members = await tarMembers(outer, DEFAULT_TAR_LIMITS, ['contents.tar.gz']);
    expect([...members.keys()]).toEqual(['contents.tar.gz']);
    expect(members.get('contents.tar.gz')?.length).toBe(64);
  });

  it('maps names by root: top, none and prefix', () => {
    expect(safeEntryPath('package/a.js')).toBe('a.js');
    expect(safeEntryPath('a.js')).toBeNull();
    expect(safeEntryPath('a.js', 'none')).toBe('a.js');
    expect(safeEntryPath('./lib/../../x', 'none')).toBeNull();
    expect(safeEntryPath('m@v1/x/y.go', { prefix: 'm@v1/' })).toBe('x/y.go');
    expect(safeEntryPath('n@v1/x.go', { prefix: 'm@v1/' })).toBeNull();
  });

  it('reads a plain tar when asked not to gunzip', async () => {
    const seen: string[] = [];
    await readTarball(Readable.from([await makeTar([{ name: 'x/a', content: '1' }])]), DEFAULT_TAR_LIMITS, async (f) => void seen.push(f.path), { gzip: false });
    expect(seen).toEqual(['a']);
  });
});
