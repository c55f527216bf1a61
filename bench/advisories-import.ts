/**
 * bench:advisories — the advisory import into Postgres (`pkgscope advisories import`, the same
 * pipeline the maintenance sync runs per archive): the two real OSV dumps of ../shared/advisories
 * (Go and PyPI, 6,952 documents), then a synthetic dump of about 500,000 advisories made from
 * them by renaming their ids (written to a temporary folder, deleted afterwards), the size of
 * OSV's whole dump of the ecosystems pkgscope matches. Each import runs in a child process of its
 * own, so its peak RSS is its own; prints advisories/s, wall time and peak RSS.
 * Targets (issue #33): the whole dump in under 10 minutes with RSS under 1 GB.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateRawSync } from 'node:zlib';
import pg from 'pg';
import { importAdvisoryPaths } from '../src/advisories/import.js';
import { OsvValidator } from '../src/advisories/osv-validate.js';
import { AdvisoryStore } from '../src/advisories/store.js';
import { ADVISORY_ARCHIVE_LIMITS, readAdvisoryZip } from '../src/advisories/zip.js';
import { connectDatabase } from '../src/db/client.js';
import { benchDatabase } from './helpers.js';

const SHARED = fileURLToPath(new URL('../../shared/advisories', import.meta.url));
const REAL = [join(SHARED, 'Go', 'all.zip'), join(SHARED, 'PyPI', 'all.zip')];
const TARGET = Number(process.env['BENCH_ADVISORIES'] ?? 500_000);

interface ChildResult {
  readonly advisories: number;
  readonly skipped: number;
  readonly seconds: number;
  readonly maxRssMb: number;
}

/**
 * This process's peak RSS in MB: Linux's VmHWM, the high-water mark of its own memory since it
 * started. Not `resourceUsage().maxRSS`: the kernel carries that across fork and exec, so a child
 * reports at least the RSS its parent had when it spawned it (this bench's parent holds the
 * synthetic dump's documents then: the child's figure read 1,023 MB whatever the import used).
 */
function peakRssMb(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (hwm !== undefined) return Number(hwm) / 1024;
  } catch {
    // Not Linux: the usage figure, which elsewhere starts from this process's own memory.
  }
  return process.resourceUsage().maxRSS / 1024;
}

/** In the child: one import, its figures as one JSON line on stdout. */
async function child(databaseUrl: string, paths: readonly string[]): Promise<void> {
  const database = connectDatabase(databaseUrl, { max: 4, applicationName: 'pkgscope-bench-advisories' });
  try {
    const started = performance.now();
    const result = await importAdvisoryPaths(new AdvisoryStore(database.db), paths);
    const seconds = (performance.now() - started) / 1000;
    const advisories = result.sources.reduce((n, s) => n + s.advisories, 0);
    const figures: ChildResult = { advisories, skipped: result.skipped.total, seconds, maxRssMb: peakRssMb() };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    await database.close();
  }
}

async function runChild(databaseUrl: string, paths: readonly string[]): Promise<ChildResult> {
  const proc = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), 'child', databaseUrl, ...paths], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const [code] = (await once(proc, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the import child exited with ${code}`);
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as ChildResult;
}

/** Every valid document of the real dumps, per ecosystem folder (compact JSON). */
async function realDocuments(): Promise<Map<string, string[]>> {
  const validator = new OsvValidator();
  const byFolder = new Map<string, string[]>();
  for (const path of REAL) {
    const folder = path.split('/').at(-2) ?? 'x';
    const docs: string[] = [];
    await readAdvisoryZip(path, ADVISORY_ARCHIVE_LIMITS, async (entry) => {
      if (!('bytes' in entry)) return;
      const parsed = validator.parse(entry.bytes);
      if (parsed.ok) docs.push(parsed.text);
    });
    byFolder.set(folder, docs);
  }
  return byFolder;
}

/**
 * A zip written entry by entry to a file, ZIP64 for its entry count (as OSV's large archives
 * are): memory holds only the central directory. (yazl keeps every deflated entry until the
 * output is read: 500,000 entries took 14 GB.)
 */
class ZipWriter {
  private offset = 0;
  private readonly central: Buffer[] = [];

  constructor(private readonly out: WriteStream) {}

  private async write(chunk: Buffer): Promise<void> {
    this.offset += chunk.length;
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }

  async add(name: string, data: Buffer): Promise<void> {
    const nameBytes = Buffer.from(name, 'utf8');
    const deflated = deflateRawSync(data);
    const crc = crc32(data);
    // The local header and the central directory entry share one run of fields (from "version
    // needed" to the name's length); the central entry's starts two bytes later, after "made by".
    const shared = (header: Buffer, at: number): Buffer => {
      header.writeUInt16LE(20, at);
      header.writeUInt16LE(0x0800, at + 2);
      header.writeUInt16LE(8, at + 4);
      header.writeUInt16LE(0x21, at + 8);
      header.writeUInt32LE(crc, at + 10);
      header.writeUInt32LE(deflated.length, at + 14);
      header.writeUInt32LE(data.length, at + 18);
      header.writeUInt16LE(nameBytes.length, at + 22);
      return header;
    };
    const local = shared(Buffer.alloc(30), 4);
    local.writeUInt32LE(0x04034b50, 0);
    const entry = shared(Buffer.alloc(46), 6);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(45, 4);
    entry.writeUInt32LE(this.offset, 42);
    this.central.push(entry, nameBytes);
    await this.write(Buffer.concat([local, nameBytes, deflated]));
  }

  async end(): Promise<void> {
    const start = this.offset;
    const count = this.central.length / 2;
    for (const chunk of this.central) await this.write(chunk);
    const size = this.offset - start;
    const zip64At = this.offset;
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(count), 24);
    record.writeBigUInt64LE(BigInt(count), 32);
    record.writeBigUInt64LE(BigInt(size), 40);
    record.writeBigUInt64LE(BigInt(start), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(zip64At), 8);
    locator.writeUInt32LE(1, 16);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(0xffff, 8);
    end.writeUInt16LE(0xffff, 10);
    end.writeUInt32LE(size, 12);
    end.writeUInt32LE(start, 16);
    await this.write(Buffer.concat([record, locator, end]));
    this.out.end();
    await once(this.out, 'close');
  }
}

/** `<folder>/<Ecosystem>/all.zip` per ecosystem, each real document copied under renamed ids until `target` in all. */
async function syntheticDump(folder: string, real: Map<string, string[]>, target: number): Promise<{ paths: string[]; advisories: number }> {
  const total = [...real.values()].reduce((n, d) => n + d.length, 0);
  const copies = Math.ceil(target / total);
  const paths: string[] = [];
  let advisories = 0;
  for (const [ecosystem, docs] of real) {
    await mkdir(join(folder, ecosystem), { recursive: true });
    const path = join(folder, ecosystem, 'all.zip');
    const zip = new ZipWriter(createWriteStream(path));
    for (let copy = 0; copy < copies; copy++) {
      for (const text of docs) {
        const doc = JSON.parse(text) as { id: string };
        const id = copy === 0 ? doc.id : `${doc.id}-s${copy}`;
        await zip.add(`${id}.json`, Buffer.from(JSON.stringify({ ...doc, id })));
        advisories++;
      }
    }
    await zip.end();
    paths.push(path);
  }
  return { paths, advisories };
}

function report(title: string, r: ChildResult): void {
  console.log(
    `${title}: ${r.advisories.toLocaleString('en')} advisories (${r.skipped} skipped) in ${r.seconds.toFixed(1)} s — ${Math.round(r.advisories / r.seconds).toLocaleString('en')} advisories/s, peak RSS ${r.maxRssMb.toFixed(0)} MB`,
  );
}

async function main(): Promise<void> {
  const databaseUrl = await benchDatabase('pkgscope_bench_advisories');
  const folder = await mkdtemp(join(tmpdir(), 'pkgscope-bench-advisories-'));
  try {
    report('real dumps (Go + PyPI)', await runChild(databaseUrl, REAL));
    const made = performance.now();
    const synthetic = await syntheticDump(folder, await realDocuments(), TARGET);
    console.log(`synthetic dump: ${synthetic.advisories.toLocaleString('en')} advisories written in ${((performance.now() - made) / 1000).toFixed(1)} s (not measured)`);
    const result = await runChild(databaseUrl, synthetic.paths);
    report('synthetic whole dump', result);
    const minutes = result.seconds / 60;
    console.log(`targets: under 10 min (${minutes.toFixed(1)} min: ${minutes < 10 ? 'met' : 'MISSED'}), RSS under 1 GB (${result.maxRssMb.toFixed(0)} MB: ${result.maxRssMb < 1024 ? 'met' : 'MISSED'})`);
  } finally {
    await rm(folder, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: process.env['BENCH_PG_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    await admin.query('DROP DATABASE IF EXISTS pkgscope_bench_advisories WITH (FORCE)');
    await admin.end();
  }
}

const [mode, databaseUrl, ...paths] = process.argv.slice(2);
(mode === 'child' && databaseUrl !== undefined ? child(databaseUrl, paths) : main()).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
