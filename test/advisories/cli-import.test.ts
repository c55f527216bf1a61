import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advisoriesCommand } from '../../src/commands/advisories.js';
import { UsageError } from '../../src/commands/usage.js';
import { pgAdvisoryLookup } from '../../src/advisories/pg-lookup.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { SHARED_ADVISORIES } from './sync-server.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

async function run(argv: readonly string[], ecosystems: readonly string[] = ['Go', 'PyPI', 'npm']): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await advisoriesCommand(db.db, argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, { ecosystems });
  return { code, out, err };
}

describe('pkgscope advisories', () => {
  it('import loads both zips; status prints them (and the configured ecosystems never synced)', async () => {
    const imported = await run(['import', join(SHARED_ADVISORIES, 'Go', 'all.zip'), join(SHARED_ADVISORIES, 'PyPI', 'all.zip')]);
    expect(imported.code).toBe(0);
    expect(imported.err).toContain('Go: 4291 advisories loaded (newest modified 0001-01-01T00:00:00.000Z)');
    expect(imported.err).toContain('PyPI: 2654 advisories loaded (newest modified 2024-10-10T17:22:00.587Z)');
    expect(imported.err.find((l) => l.startsWith('7 entries skipped (schema 7)'))).toBeDefined();

    const status = await run(['status']);
    expect(status.code).toBe(0);
    const rows = status.out.map((l) => l.split('\t'));
    expect(rows[0]).toEqual(['ECOSYSTEM', 'STATE', 'ADVISORIES', 'MODIFIED MAX', 'SYNCED AT', 'REASON']);
    expect(rows.slice(1).map((r) => r.slice(0, 4))).toEqual([
      ['Go', 'ready', '4291', '0001-01-01T00:00:00.000Z'],
      ['PyPI', 'ready', '2654', '2024-10-10T17:22:00.587Z'],
      ['npm', 'empty', '0', '-'],
    ]);

    const json = JSON.parse((await run(['status', '--json'])).out.join('\n')) as { sources: { ecosystem: string; advisories: number; state: string; origin: string | null }[] };
    expect(json.sources.map((s) => [s.ecosystem, s.state, s.advisories])).toEqual([
      ['Go', 'ready', 4291],
      ['PyPI', 'ready', 2654],
      ['npm', 'empty', 0],
    ]);
    expect(json.sources[0]?.origin).toMatch(/^import: .*Go\/all\.zip/);
    expect((await pgAdvisoryLookup(db.db).byPackages('Go', ['golang.org/x/net'])).length).toBeGreaterThan(10);
  }, 120_000);

  it('a folder (a bulk mirror root) imports the same; importing again replaces, never duplicates', async () => {
    const imported = await run(['import', SHARED_ADVISORIES]);
    expect(imported.code).toBe(0);
    const counts = await db.pool.query<{ ecosystem: string; n: number }>(
      'SELECT s.ecosystem, count(d.id)::int AS n FROM advisory_sources s JOIN advisory_documents d ON d.generation = s.generation GROUP BY s.ecosystem ORDER BY s.ecosystem',
    );
    expect(counts.rows).toEqual([
      { ecosystem: 'Go', n: 4291 },
      { ecosystem: 'PyPI', n: 2654 },
    ]);
    const generations = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM advisory_generations');
    expect(generations.rows[0]?.n).toBe(2);
  }, 120_000);

  it('a path that cannot be read changes nothing and fails with its reason; a bad call is a usage error', async () => {
    const failed = await run(['import', join(SHARED_ADVISORIES, 'Go', 'all.zip'), join(SHARED_ADVISORIES, 'no-such.zip')]);
    expect(failed.code).toBe(1);
    expect(failed.err.join('\n')).toMatch(/^nothing imported: unreadable_path: .*no-such\.zip: ENOENT/);
    const generations = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM advisory_generations');
    expect(generations.rows[0]?.n).toBe(2);
    await expect(run(['import'])).rejects.toBeInstanceOf(UsageError);
    await expect(run(['frobnicate'])).rejects.toBeInstanceOf(UsageError);
  }, 120_000);
});
