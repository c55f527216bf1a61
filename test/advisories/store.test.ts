import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdvisoryError } from '../../src/advisories/errors.js';
import { openFileLookup } from '../../src/advisories/file-lookup.js';
import { matchVulnerabilities } from '../../src/advisories/match/match.js';
import { pgAdvisoryLookup } from '../../src/advisories/pg-lookup.js';
import { advisoryEvidence } from '../../src/advisories/render/evidence.js';
import { vulnerabilityLines } from '../../src/advisories/render/text.js';
import { AdvisoryStore } from '../../src/advisories/store.js';
import { ADVISORY_ARCHIVE_LIMITS, readAdvisoryZip, type ArchiveEntry } from '../../src/advisories/zip.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { makeZip } from '../helpers/zip.js';
import { SHARED_ADVISORIES } from './sync-server.js';

/** A real crates.io advisory (RUSTSEC-2021-0078, hyper's lenient header parsing), cut to what the schema needs. */
function rustsec(id: string, modified: string, name = 'hyper'): Record<string, unknown> {
  return {
    id,
    modified,
    aliases: ['CVE-2021-32715', 'GHSA-f3pg-qwvg-p99c'],
    summary: 'Lenient `hyper` header parsing of `Content-Length` could allow request smuggling',
    affected: [{ package: { ecosystem: 'crates.io', name }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0.0.0-0' }, { fixed: '0.14.10' }] }] }],
  };
}

let db: TestDatabase;
let folder: string;

beforeAll(async () => {
  db = await createTestDatabase();
  folder = await mkdtemp(join(tmpdir(), 'pkgscope-advisory-store-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
  await db.drop();
});

async function zipFile(name: string, bytes: Buffer): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, bytes);
  return path;
}

async function entriesOf(path: string, limits = ADVISORY_ARCHIVE_LIMITS): Promise<ArchiveEntry[]> {
  const entries: ArchiveEntry[] = [];
  await readAdvisoryZip(path, limits, async (entry) => {
    entries.push(entry);
  });
  return entries;
}

function zip64(entries: Readonly<Record<string, string>>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(entries)) zip.addBuffer(Buffer.from(content), name, { forceZip64Format: true });
  zip.end({ forceZip64Format: true, comment: '' });
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.once('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.once('error', reject);
  });
}

describe('OSV archive reader', () => {
  it('reads ZIP64 archives (sizes and offsets in the extended field) and passes over what is no JSON document', async () => {
    const path = await zipFile('zip64.zip', await zip64({ 'a.json': '{"a":1}', 'docs/README.md': 'hello', 'b/c.JSON': '{"c":2}' }));
    const entries = await entriesOf(path);
    expect(entries.map((e) => [e.name, 'bytes' in e ? e.bytes.toString() : e.skipped])).toEqual([
      ['a.json', '{"a":1}'],
      ['b/c.JSON', '{"c":2}'],
    ]);
  });

  it('holds entries to the bounds: a large entry is skipped, too many entries or bytes refuse the archive', async () => {
    const path = await zipFile('bounds.zip', await makeZip({ 'small.json': '{}', 'large.json': `{"x":"${'a'.repeat(5_000)}"}` }));
    const entries = await entriesOf(path, { ...ADVISORY_ARCHIVE_LIMITS, maxEntryBytes: 1_000 });
    expect(entries.map((e) => ('bytes' in e ? e.name : `${e.name}:${e.skipped}`))).toEqual(['small.json', 'large.json:too_large']);
    await expect(entriesOf(path, { ...ADVISORY_ARCHIVE_LIMITS, maxEntries: 1 })).rejects.toMatchObject({ code: 'archive_limit' });
    await expect(entriesOf(path, { ...ADVISORY_ARCHIVE_LIMITS, maxTotalBytes: 1_000 })).rejects.toMatchObject({ code: 'archive_limit' });
    await expect(entriesOf(path, { ...ADVISORY_ARCHIVE_LIMITS, ratioFloorBytes: 100, maxRatio: 2 })).rejects.toMatchObject({ code: 'archive_limit' });
  });

  it('refuses a damaged archive: no directory, a truncated file, a flipped byte (CRC)', async () => {
    const good = await makeZip({ 'a.json': JSON.stringify(rustsec('RUSTSEC-2021-0078', '2021-07-01T00:00:00Z')) });
    const broken = [Buffer.from('not a zip at all'), good.subarray(0, good.length - 30)];
    const flipped = Buffer.from(good);
    // Inside the first entry's compressed data (after its 30-byte header and 6-byte name).
    flipped[40] = (flipped[40] ?? 0) ^ 0xff;
    broken.push(flipped);
    for (const [i, bytes] of broken.entries()) {
      const error = await entriesOf(await zipFile(`broken-${i}.zip`, bytes)).catch((e: unknown) => e);
      expect(error, `archive ${i}`).toBeInstanceOf(AdvisoryError);
      expect((error as AdvisoryError).code).toBe('corrupt_archive');
    }
  });
});

describe('advisory store', () => {
  it('swaps a generation in atomically: readers see the old set until the commit, a discarded one never', async () => {
    const store = new AdvisoryStore(db.db);
    const lookup = pgAdvisoryLookup(db.db);
    const write = async (ids: readonly string[], commit: boolean): Promise<void> => {
      await store.exclusively(true, async () => {
        const staged = await store.stage('crates.io');
        for (const id of ids) {
          const doc = rustsec(id, '2021-07-01T00:00:00Z');
          await staged.add({ id, modified: '2021-07-01T00:00:00Z', text: JSON.stringify(doc), names: ['hyper'] });
        }
        await staged.flush();
        // Written, not yet current.
        expect((await lookup.byPackages('crates.io', ['hyper'])).map((a) => a.id)).not.toEqual(ids);
        if (commit) await staged.commit({ origin: 'test' });
        else await staged.discard();
      });
    };
    await write(['RUSTSEC-2021-0078'], true);
    expect((await lookup.byPackages('crates.io', ['hyper'])).map((a) => a.id)).toEqual(['RUSTSEC-2021-0078']);
    await write(['RUSTSEC-2021-0001', 'RUSTSEC-2021-0002'], false);
    expect((await lookup.byPackages('crates.io', ['hyper'])).map((a) => a.id)).toEqual(['RUSTSEC-2021-0078']);
    await write(['RUSTSEC-2021-0001', 'RUSTSEC-2021-0002'], true);
    expect((await lookup.byPackages('crates.io', ['hyper'])).map((a) => a.id)).toEqual(['RUSTSEC-2021-0001', 'RUSTSEC-2021-0002']);
    // Older generations are gone, rows and all.
    const left = await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM advisory_generations WHERE ecosystem = 'crates.io'");
    expect(left.rows[0]?.n).toBe(1);
    expect((await store.sources()).find((s) => s.ecosystem === 'crates.io')).toMatchObject({ state: 'ready', advisories: 2, origin: 'test' });
  });

  it('a writer that died mid-sync leaves its ecosystem syncing; the next writer shows it failed (interrupted)', async () => {
    const store = new AdvisoryStore(db.db);
    await store.markSyncing('crates.io');
    expect((await store.sources()).find((s) => s.ecosystem === 'crates.io')?.state).toBe('syncing');
    await store.exclusively(true, async () => undefined);
    const row = (await store.sources()).find((s) => s.ecosystem === 'crates.io');
    expect(row).toMatchObject({ state: 'failed', advisories: 2 });
    expect(row?.reason).toMatch(/^interrupted: /);
  });

  it('an inventory of ecosystems with no advisories loaded says so: synced empty and never synced are stated empty, count 0', async () => {
    const store = new AdvisoryStore(db.db);
    // npm synced from an archive without documents; PyPI never synced; crates.io holds two (above).
    await store.exclusively(true, async () => {
      const staged = await store.stage('npm');
      await staged.commit({ origin: 'test' });
    });
    const lookup = pgAdvisoryLookup(db.db);
    const occurrence = (ecosystem: string, name: string) => ({ ref: `${ecosystem}:${name}`, ecosystem, name, version: '1.0.0', source: 'registry' as const, resolved: null, facts: {} });
    const report = await matchVulnerabilities([occurrence('npm', 'left-pad'), occurrence('pypi', 'six')], lookup);
    expect(report.matches).toEqual([]);
    const evidence = advisoryEvidence(report);
    expect(evidence.map((e) => e.name)).toEqual(['service:advisories']);
    const stated = JSON.parse(evidence[0]?.value ?? '[]') as Record<string, unknown>[];
    expect(stated.map((s) => [s['ecosystem'], s['advisories'], s['state']])).toEqual([
      ['PyPI', 0, 'empty'],
      ['crates.io', 2, 'ready'],
      ['npm', 0, 'empty'],
    ]);
    expect(stated.find((s) => s['ecosystem'] === 'npm')?.['synced_at']).toMatch(/^\d{4}-/);
    expect(stated.find((s) => s['ecosystem'] === 'PyPI')).toMatchObject({ modified_max: null, synced_at: null });
    const text = vulnerabilityLines(report, new Map()).join('\n');
    expect(text).toContain('Vulnerabilities: none found');
    expect(text).toMatch(/Advisories matched against: PyPI 0 \(empty, synced never\); crates\.io 2 \(newest [^)]*\); npm 0 \(empty, synced \d{4}-/);
  });
});

describe('file lookup (the CLI without a service)', () => {
  it('reads the real zips into memory: counts, names by normalisation, snapshots', async () => {
    const lookup = await openFileLookup([join(SHARED_ADVISORIES, 'Go', 'all.zip'), join(SHARED_ADVISORIES, 'PyPI', 'all.zip')]);
    expect(lookup.skipped).toBe(7);
    expect(lookup.skippedDetail.byReason).toEqual({ schema: 7 });
    const snapshots = await lookup.snapshots();
    expect(snapshots.map((s) => [s.ecosystem, s.advisories, s.modifiedMax])).toEqual([
      ['Go', 4_291, '0001-01-01T00:00:00.000Z'],
      ['PyPI', 2_654, '2024-10-10T17:22:00.587Z'],
    ]);
    expect(snapshots.every((s) => s.syncedAt !== null)).toBe(true);
    const jinja = (await lookup.byPackages('PyPI', ['Jinja2'])).map((a) => a.id);
    expect(jinja).toEqual((await lookup.byPackages('PyPI', ['jinja2'])).map((a) => a.id));
    expect(jinja).toContain('PYSEC-2019-217');
    expect(await lookup.byPackages('npm', ['lodash'])).toEqual([]);
  }, 120_000);

  it('reads folders of OSV JSON (nested, the newest copy of an advisory wins) and refuses a missing path', async () => {
    const tree = join(folder, 'tree');
    await mkdir(join(tree, 'crates', 'hyper'), { recursive: true });
    await writeFile(join(tree, 'crates', 'hyper', 'RUSTSEC-2021-0078.json'), JSON.stringify(rustsec('RUSTSEC-2021-0078', '2021-07-01T00:00:00Z')));
    await writeFile(join(tree, 'newer.json'), JSON.stringify({ ...rustsec('RUSTSEC-2021-0078', '2023-01-01T00:00:00Z'), summary: 'newer' }));
    await writeFile(join(tree, 'broken.json'), '{');
    await writeFile(join(tree, 'notes.txt'), 'not read');
    const lookup = await openFileLookup([tree]);
    const found = await lookup.byPackages('crates.io', ['hyper']);
    expect(found.map((a) => [a.id, a.summary])).toEqual([['RUSTSEC-2021-0078', 'newer']]);
    expect(lookup.skippedDetail.byReason).toEqual({ invalid_json: 1 });
    await expect(openFileLookup([join(folder, 'no-such-folder')])).rejects.toMatchObject({ code: 'unreadable_path' });
  });
});
