import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createToken, ensureAccount } from '../../src/accounts/tokens.js';
import { compileMatcher, portableRegex } from '../../src/inventory/query/grep.js';
import type { GrepResponseType } from '../../src/routes/inventory/grep-schemas.js';
import type { LanguagesResponseType } from '../../src/routes/languages.js';
import type { RunningWorkers } from '../../src/processes/workers.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { packageTarball } from '../helpers/tarball.js';

/** `POST /v1/grep` and `GET /v1/languages` against a prepared fixture package. */

const MANY = Array.from({ length: 30 }, (_, i) => `needle ${i}`).join('\n');
const FILES: Record<string, string> = {
  'package.json': '{"name":"hay","version":"1.0.0"}\n',
  'README.md': '# hay\nFind the Needle here.\n',
  'src/a.js': 'const x = 1;\n// needle in a\nconst needle = "needle";\n',
  'src/b.ts': 'export const b = 2;\r\nexport const NEEDLE = 3;\r\n',
  'src/weird name+#.js': 'let needle;\n',
  'src/many.js': `${MANY}\n`,
  'test/a.test.js': 'test("needle", () => {});\n',
  'lib/unicode.js': 'const s = "ünïcödé needle";\n',
  'lib/long.js': `${'x'.repeat(5000)}needle${'y'.repeat(5000)}\n`,
};

let h: JobsHarness;
let token: string;
let workers: RunningWorkers;
const { listOk } = inventoryClient(
  () => h.app,
  () => token,
);

beforeAll(async () => {
  h = await startJobsHarness({}, { packages: { hay: { versions: { '1.0.0': { _tarball: await packageTarball(FILES) } } } } });
  token = await h.token('grepper');
  workers = await h.startWorkers();
  await listOk({ target: 'npm:hay@1.0.0', wait_timeout_ms: 20_000 });
  // Texts are indexed for grep after the snapshot is ready (no event says when): until then grep
  // scans them without the index, with the same matches. The index is what these tests check.
  await vi
    .waitFor(async () => {
      const rows = await h.database.db.execute<{ missing: string }>(
        sql`SELECT count(*)::text AS missing FROM inventory_entries e LEFT JOIN blob_texts t ON t.hash = e.content_hash WHERE e.line_count IS NOT NULL AND t.hash IS NULL`,
      );
      if (rows.rows[0]?.missing !== '0') throw new Error('texts not indexed yet');
    }, { timeout: 20_000, interval: 50 });
});
afterAll(async () => {
  await workers.close();
  await h.close();
});

async function grep(body: Record<string, unknown>) {
  return h.app.inject({ method: 'POST', url: '/v1/grep', headers: { authorization: `Bearer ${token}` }, payload: { target: 'npm:hay@1.0.0', ...body } });
}

async function grepOk(body: Record<string, unknown>): Promise<GrepResponseType> {
  const res = await grep(body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<GrepResponseType>();
}

const where = (r: GrepResponseType): string[] => r.matches.map((m) => `${m.path}:${m.line_number}:${m.column_start}-${m.column_end}`);

describe('grep', () => {
  it('finds exact text in path then line order, with columns, context and read actions', async () => {
    const r = await grepOk({ pattern: 'needle', paths: ['src/a.js', 'src/b.ts', 'lib'], context_lines: 1 });
    expect(where(r)).toEqual(['lib/long.js:1:5001-5007', 'lib/unicode.js:1:20-26', 'src/a.js:2:4-10', 'src/a.js:3:7-13', 'src/a.js:3:17-23']);
    expect(r).toMatchObject({ has_more: false, next_cursor: null, stopped_at: null, index_narrowed: true, canonical_target: 'npm:hay@1.0.0' });
    const a = r.matches.find((m) => m.path === 'src/a.js');
    expect(a).toMatchObject({ line: '// needle in a', line_column: 1, before: [{ line_number: 1, text: 'const x = 1;' }], after: [{ line_number: 3, text: 'const needle = "needle";' }], read: { target: 'npm:hay@1.0.0', path: 'src/a.js' }, language: 'javascript' });
    // A line over 2,000 characters is cut around the match, and says where the cut starts.
    const long = r.matches[0];
    if (long === undefined) throw new Error('no match in lib/long.js');
    expect(long.line.length).toBe(2000);
    expect(long.line.slice(long.column_start - long.line_column, long.column_end - long.line_column)).toBe('needle');
  });

  it('matches case-insensitively, by RE2 regular expression, and strips CRLF line ends', async () => {
    const insensitive = await grepOk({ pattern: 'NEEDLE', case_sensitive: false, paths: ['README.md', 'src/b.ts'] });
    expect(where(insensitive)).toEqual(['README.md:2:10-16', 'src/b.ts:2:14-20']);
    expect(insensitive.matches[1]?.line).toBe('export const NEEDLE = 3;');
    const regex = await grepOk({ pattern: '^const \\w+ = \\d', regex: true, paths: ['src'] });
    expect(where(regex)).toEqual(['src/a.js:1:1-12']);
    // `^` and `$` hold at every line, not only at the start and end of a file.
    const anchored = await grepOk({ pattern: '^needle 2\\d$', regex: true, paths: ['src'] });
    expect(where(anchored)).toEqual(Array.from({ length: 10 }, (_, i) => `src/many.js:${21 + i}:1-10`));
    const crlf = await grepOk({ pattern: '= 3;$', regex: true, paths: ['src/b.ts'] });
    expect(where(crlf)).toEqual(['src/b.ts:2:21-25']);
    const unportable = await grepOk({ pattern: 'needle\\b', regex: true, paths: ['src/weird name+#.js'] });
    expect(unportable).toMatchObject({ index_narrowed: false });
    expect(where(unportable)).toEqual(['src/weird name+#.js:1:5-11']);
  });

  it('applies list filters, and pages with a cursor bound to the search', async () => {
    const tests = await grepOk({ pattern: 'needle', intents: ['test'] });
    expect(where(tests)).toEqual(['test/a.test.js:1:7-13']);
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 20; page++) {
      const r = await grepOk({ pattern: 'needle', limit: 7, ...(after ? { after } : {}) });
      seen.push(...where(r));
      if (!r.has_more) break;
      expect(r.stopped_at).toBe('limit');
      after = r.next_cursor ?? undefined;
    }
    const all = await grepOk({ pattern: 'needle', limit: 1000 });
    expect(seen).toEqual(where(all));
    expect(all.matches.filter((m) => m.path === 'src/many.js')).toHaveLength(30);
    expect(all.files_with_matches).toBe(6);
    // A cursor is refused for another pattern.
    const first = await grepOk({ pattern: 'needle', limit: 2 });
    const other = await grep({ pattern: 'needle ', limit: 2, after: first.next_cursor });
    expect(other.statusCode).toBe(400);
    expect(other.json<{ detail: string }>().detail).toMatch(/another search/);
  });

  it('rejects what it cannot run, naming the rule', async () => {
    for (const [body, pattern] of [
      [{ pattern: '' }, /pattern/],
      [{ pattern: '(a)\\1', regex: true }, /not an RE2 regular expression/],
      [{ pattern: '(?=a)', regex: true }, /lookaround/],
      [{ pattern: 'x'.repeat(1001) }, /pattern/],
      [{ pattern: 'a', context_lines: 11 }, /context_lines/],
      [{ pattern: 'a', limit: 1001 }, /limit/],
      [{ pattern: 'a', after: 'nope' }, /not a valid cursor/],
      [{ pattern: 'a', intents: ['docs'] }, /intents\[0\]/],
    ] as const) {
      const res = await grep(body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json<{ detail: string }>().detail).toMatch(pattern);
    }
  });

  it('finishes fast on pathological patterns (linear-time engine)', async () => {
    for (const pattern of ['(a+)+$', '(x+x+)+y', '(.*a){12}', '(\\w|\\d)*z$']) {
      const started = performance.now();
      const r = await grepOk({ pattern, regex: true });
      expect(r.stopped_at).toBeNull();
      // Bounded by the request's own limits, not by the pattern: a correctness check, never a timing target.
      expect(performance.now() - started).toBeLessThan(10_000);
    }
  });

  it('needs the read capability', async () => {
    const limited = (await createToken(h.database.db, await ensureAccount(h.database.db, 'list-only', { capabilities: ['list'] }))).token;
    const res = await h.app.inject({ method: 'POST', url: '/v1/grep', headers: { authorization: `Bearer ${limited}` }, payload: { target: 'npm:hay@1.0.0', pattern: 'x' } });
    expect(res.statusCode).toBe(403);
  });
});

describe('grep internals', () => {
  it('keeps the index prefilter to patterns PostgreSQL reads the same way', () => {
    expect(portableRegex('^const \\w+ = \\d')).toBe('(?n)^const \\w+ = \\d');
    expect(portableRegex('a(?:b|c)[^x]')).toBe('(?n)a(?:b|c)[^x]');
    expect(portableRegex('a\\bc')).toBeNull();
    expect(portableRegex('[[:alpha:]]')).toBeNull();
    expect(portableRegex('(?i)a')).toBeNull();
    expect(compileMatcher({ pattern: 'x*', regex: true, caseSensitive: true }).line('ab')).toEqual([
      { start: 0, end: 0 },
      { start: 1, end: 1 },
      { start: 2, end: 2 },
    ]);
  });
});

describe('languages', () => {
  it('lists the ids the languages filter takes, best match first', async () => {
    const get = async (query: string) => {
      const res = await h.app.inject({ method: 'GET', url: `/v1/languages?${query}`, headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<LanguagesResponseType>().languages;
    };
    const ts = await get('q=ts&limit=3');
    expect(ts[0]).toMatchObject({ id: 'typescript', name: 'TypeScript', type: 'programming' });
    expect(ts[0]?.extensions).toContain('.ts');
    expect((await get('q=js'))[0]?.id).toBe('javascript');
    expect((await get('q=Dockerfile'))[0]?.id).toBe('dockerfile');
    expect(await get('limit=5')).toHaveLength(5);
    // The id is what list entries carry: filtering by it finds the fixture's JavaScript files.
    const listed = await listOk({ target: 'npm:hay@1.0.0', recursive: true, languages: [(await get('q=javascript'))[0]?.id ?? ''] });
    expect(listed.entries.map((e) => e.path).sort()).toEqual(['lib/long.js', 'lib/unicode.js', 'src/a.js', 'src/many.js', 'src/weird name+#.js', 'test/a.test.js']);
    const bad = await h.app.inject({ method: 'GET', url: '/v1/languages?limit=0', headers: { authorization: `Bearer ${token}` } });
    expect(bad.statusCode).toBe(400);
  });
});
