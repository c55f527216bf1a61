/**
 * A minimal AdvisoryLookup over OSV bulk zips and fixture folders for the matcher's tests and
 * benchmark: every document indexed by each `affected[].package` it names. (The product's reader,
 * with the archive limits and schema validation, is src/advisories/file-lookup.ts.)
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import yauzl, { type Entry } from 'yauzl';
import { normalizeName } from '../../src/advisories/ecosystems.js';
import type { AdvisoryLookup, AdvisorySnapshot, OsvAdvisory } from '../../src/advisories/types.js';

export const SHARED_ADVISORIES = join(import.meta.dirname, '..', '..', '..', 'shared', 'advisories');
export const FIXTURE_ADVISORIES = join(import.meta.dirname, '..', 'fixtures', 'advisories');

function zipDocuments(path: string): Promise<OsvAdvisory[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (error, zip) => {
      if (error !== null) return reject(error);
      const docs: OsvAdvisory[] = [];
      zip.on('entry', (entry: Entry) => {
        if (!entry.fileName.endsWith('.json')) return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e !== null) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.once('end', () => {
            docs.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OsvAdvisory);
            zip.readEntry();
          });
          stream.once('error', reject);
        });
      });
      zip.once('end', () => resolve(docs));
      zip.once('error', reject);
      zip.readEntry();
    });
  });
}

async function folderDocuments(path: string): Promise<OsvAdvisory[]> {
  const names = (await readdir(path)).filter((n) => n.endsWith('.json')).sort();
  return Promise.all(names.map(async (n) => JSON.parse(await readFile(join(path, n), 'utf8')) as OsvAdvisory));
}

export interface MemoryLookup extends AdvisoryLookup {
  /** How many times `byPackages` was called. */
  readonly calls: () => number;
}

export function memoryLookup(documents: readonly OsvAdvisory[]): MemoryLookup {
  const index = new Map<string, OsvAdvisory[]>();
  const perEcosystem = new Map<string, { count: number; modifiedMax: string | null }>();
  for (const doc of documents) {
    const seen = new Set<string>();
    for (const a of doc.affected ?? []) {
      if (a.package === undefined) continue;
      const key = `${a.package.ecosystem}\u0000${normalizeName(a.package.ecosystem, a.package.name)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      index.set(key, [...(index.get(key) ?? []), doc]);
      const held = perEcosystem.get(a.package.ecosystem) ?? { count: 0, modifiedMax: null };
      perEcosystem.set(a.package.ecosystem, { count: held.count + 1, modifiedMax: held.modifiedMax === null || doc.modified > held.modifiedMax ? doc.modified : held.modifiedMax });
    }
  }
  let calls = 0;
  return {
    calls: () => calls,
    byPackages: (ecosystem, names) => {
      calls++;
      const out = new Map<string, OsvAdvisory>();
      for (const name of names) for (const doc of index.get(`${ecosystem}\u0000${name}`) ?? []) out.set(doc.id, doc);
      return Promise.resolve([...out.values()]);
    },
    snapshots: () =>
      Promise.resolve(
        [...perEcosystem].map(([ecosystem, s]): AdvisorySnapshot => ({ ecosystem, advisories: s.count, modifiedMax: s.modifiedMax, syncedAt: '2026-11-27T00:00:00Z' })),
      ),
  };
}

/** Documents of OSV zips and folders of OSV JSON. */
export async function readDocuments(paths: readonly string[]): Promise<OsvAdvisory[]> {
  const all = await Promise.all(paths.map((p) => (p.endsWith('.zip') ? zipDocuments(p) : folderDocuments(p))));
  return all.flat();
}
