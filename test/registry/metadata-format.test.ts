/**
 * Cached metadata carries the shape it was written in: an entry written before a field existed
 * (suppliers) is a miss, fetched again, rather than a package without that field for a week.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageMetadata } from '../../src/db/schema/index.js';
import { DiskMetadataCache } from '../../src/ecosystems/shared/disk-cache.js';
import { PgMetadataCache, storedCoordinate } from '../../src/db/metadata-cache.js';
import { EMPTY_METADATA, METADATA_FORMAT, type PackageMetadata } from '../../src/model/metadata.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const OLD_SHAPE = { license: 'MIT', description: null, homepage: null, repository: null, author: 'Ada', deprecated: null };
const CURRENT: PackageMetadata = { ...EMPTY_METADATA, license: 'MIT', author: 'Ada', supplier: { kind: 'person', party: 'Ada' } };

describe('the disk cache’s format', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pkgscope-format-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('takes a line written before formats, or in another format, for a miss, and writes its own format', async () => {
    const file = join(dir, 'metadata.ndjson');
    const fetchedAt = Date.now();
    await writeFile(
      file,
      [
        JSON.stringify({ key: 'unformatted@1', fetchedAt, metadata: OLD_SHAPE }),
        JSON.stringify({ format: METADATA_FORMAT - 1, key: 'older@1', fetchedAt, metadata: OLD_SHAPE }),
        JSON.stringify({ format: METADATA_FORMAT, key: 'current@1', fetchedAt, metadata: CURRENT }),
      ].join('\n') + '\n',
    );
    const cache = new DiskMetadataCache(file);
    expect(await cache.getMany(['unformatted@1', 'older@1', 'current@1'])).toEqual(new Map([['current@1', CURRENT]]));
    // Fetched again and written: the new line wins and is read in the current format.
    await cache.setMany(new Map([['unformatted@1', CURRENT]]));
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ format: METADATA_FORMAT, key: 'unformatted@1' });
    expect((await new DiskMetadataCache(file).getMany(['unformatted@1', 'older@1'])).get('unformatted@1')).toEqual(CURRENT);
  });
});

describe('the Postgres cache’s format', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('never reads a row written under the bare coordinate (before formats), and writes under its format', async () => {
    // What the cache wrote before it had a format: the coordinate as it is.
    await database.db.insert(packageMetadata).values({ coordinate: 'legacy@1.0.0', metadata: OLD_SHAPE });
    const cache = new PgMetadataCache(database.db, { memoryEntries: 0 });
    expect((await cache.getMany(['legacy@1.0.0'])).size).toBe(0);
    await cache.setMany(new Map([['legacy@1.0.0', CURRENT]]));
    expect((await cache.getMany(['legacy@1.0.0'])).get('legacy@1.0.0')).toEqual(CURRENT);
    const rows = await database.db.execute<{ coordinate: string }>(sql`SELECT coordinate FROM package_metadata WHERE coordinate LIKE ${'%legacy@1.0.0'} ORDER BY coordinate`);
    expect(rows.rows.map((r) => r.coordinate).sort()).toEqual([storedCoordinate('legacy@1.0.0'), 'legacy@1.0.0'].sort());
    expect(storedCoordinate('legacy@1.0.0')).toBe(`f${METADATA_FORMAT}|legacy@1.0.0`);
  });
});
