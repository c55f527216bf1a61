import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inventories } from '../../src/db/schema/index.js';
import type { ListEntryType, ReadResponseType } from '../../src/routes/inventory/schemas.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import type { FixturePackage } from '../helpers/registry.js';
import { makeTarball, packageTarball } from '../helpers/tarball.js';

const BIG = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `line ${i} — ünïcödé ✓\n`).join(''), 'utf8');
const BINARY = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256));
const DEMO_FILES: Record<string, string | Buffer> = {
  'package.json': '{"name":"demo","version":"1.1.0"}\n',
  'README.md': '# demo\n',
  '.eslintrc.js': 'module.exports = {};\n',
  'src/index.js': 'export * from "./util/strings.js";\n',
  'src/util/strings.js': 'export const s = 1;\n',
  'src/weird name+#%.js': 'export const weird = true;\n',
  'src/ünïcode.js': 'export const u = "ü";\n',
  'test/a.test.js': 'test("a", () => {});\n',
  'dist/index.js': 'var a=1;\n//# sourceMappingURL=index.js.map\n',
  'dist/index.js.map': '{"version":3}',
  'bin/tool': BINARY,
  'docs/big.txt': BIG,
};

let h: JobsHarness;
let token: string;
const { list, listOk, read } = inventoryClient(
  () => h.app,
  () => token,
);
const packages: Record<string, FixturePackage> = {};

beforeAll(async () => {
  packages['demo'] = {
    versions: {
      '1.0.0': { _tarball: await packageTarball({ 'index.js': 'old\n' }), license: 'MIT' },
      '1.1.0': { _tarball: await packageTarball(DEMO_FILES), repository: 'github:owner/demo', gitHead: 'feedbeef' },
    },
  };
  packages['@scope/pkg'] = { versions: { '2.0.0': { _tarball: await packageTarball({ 'index.js': 'scoped\n' }) } } };
  packages['gone'] = { versions: { '1.0.0': { _tarballStatus: 404, repository: { url: 'git+https://git.example.test/owner/gone.git' }, gitHead: 'abc123' } } };
  packages['bomb'] = { versions: { '1.0.0': { _tarball: await makeTarball([{ name: 'package/zeros', content: Buffer.alloc(48 * 1024 * 1024) }]) } } };
  const longDir = `${'d'.repeat(200)}/`.repeat(10);
  packages['wide'] = {
    versions: { '1.0.0': { _tarball: await packageTarball(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`${longDir}f${i}.txt`, 'x']))) } },
  };
  packages['leaky'] = {
    versions: { '1.0.0': { _tarballStatus: 410, repository: { url: 'git+https://user:s3cret@git.example.test/owner/leaky.git#main' }, gitHead: 'def456' } },
  };
  // Registry documents this client cannot read: `versions` that is not a map.
  const malformed: Record<string, unknown> = {
    'bad-versions': { name: 'bad-versions', 'dist-tags': { latest: '1.0.0' }, versions: 'oops' },
    'array-versions': { name: 'array-versions', 'dist-tags': { latest: '1.0.0' }, versions: [] },
    'bad-tags': { name: 'bad-tags', 'dist-tags': 'latest', versions: {} },
  };
  h = await startJobsHarness({}, { packages, rawPackument: (name) => malformed[name] });
  token = await h.token('lister');
});
afterAll(() => h.close());




async function expect400(body: Record<string, unknown>, pattern: RegExp) {
  const res = await list(body);
  expect(res.statusCode, JSON.stringify(body).slice(0, 120)).toBe(400);
  expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', instance: res.headers['x-request-id'] });
  expect(res.json<{ detail: string }>().detail).toMatch(pattern);
}

describe('request validation', () => {
  it.each([
    [{}, /target is required/],
    [{ target: '   ' }, /target must not be blank/],
    [{ target: 'cpan:Moose' }, /target prefix/],
    [{ target: 'npm:Bad Name' }, /invalid package/],
    [{ target: 'npm:demo', paths: Array.from({ length: 1001 }, () => 'a') }, /paths must have at most 1000 items/],
    [{ target: 'npm:demo', paths: ['a', ''] }, /paths\[1\]/],
    [{ target: 'npm:demo', paths: [' '] }, /paths\[0\] must not be blank/],
    [{ target: 'npm:demo', paths: ['ü'.repeat(1025)] }, /paths\[0\] is longer than 2048 UTF-8 bytes/],
    [{ target: 'npm:demo', limit: 0 }, /limit must be >= 1/],
    [{ target: 'npm:demo', limit: 501 }, /limit must be <= 500/],
    [{ target: 'npm:demo', limit: '5' }, /limit must be an integer/],
    [{ target: 'npm:demo', limit: null }, /limit must be an integer/],
    [{ target: 'npm:demo', recursive: 'yes' }, /recursive must be a boolean/],
    [{ target: 'npm:demo', wait_timeout_ms: 210001 }, /wait_timeout_ms must be <= 210000/],
    [{ target: 'npm:demo', wait_timeout_ms: -1 }, /wait_timeout_ms must be >= 0/],
    [{ target: 'npm:demo', languages: Array.from({ length: 65 }, () => 'x') }, /languages must have at most 64 items/],
    [{ target: 'npm:demo', file_types: ['ts', '  '] }, /file_types\[1\] must not be blank/],
    [{ target: 'npm:demo', intents: ['production', 'docs'] }, /intents\[1\] must be one of/],
    [{ target: 'npm:demo', intents: ['TEST'] }, /intents\[0\] must be one of/],
    [{ target: 'npm:demo', intents: [' test'] }, /intents\[0\] must be one of/],
    [{ target: 'site:docs.example.test', languages: ['html'] }, /languages cannot be used with a site: target/],
    [{ target: 'npm:demo', fields: 'path' }, /fields is not an allowed field/],
    [{ target: 'npm:demo', after: 'not-a-cursor' }, /after is not a valid cursor/],
  ])('rejects %j', async (body, pattern) => {
    await expect400(body, pattern);
  });

  it.each(['fields=path', 'limit=5', 'x', 'after='])('rejects any query parameter (%s): the operation takes none', async (query) => {
    const res = await h.app.inject({ method: 'POST', url: `/v1/list?${query}`, headers: { authorization: `Bearer ${token}` }, payload: { target: 'npm:demo' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(res.json<{ detail: string }>().detail).toMatch(/query parameter/);
  });

  it('answers a wrong method with 405 and Allow: POST', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/list' });
    expect(res.statusCode).toBe(405);
    expect(res.headers['allow']).toBe('POST');
  });
});

describe('preparation', () => {
  it('answers a pending page first, then the entries once prepared (waiting by event)', async () => {
    const first = await listOk({ target: 'npm:demo' });
    expect(first).toMatchObject({
      inventory_kind: 'source',
      requested_target: 'npm:demo',
      canonical_target: 'npm:demo@1.1.0',
      entries: [],
      has_more: false,
      next_cursor: null,
      indexed_version: null,
      code_index_state: 'pending',
      indexing_status: 'pending',
      inventory_state: null,
      crawl_status: null,
      coverage_state: null,
      preparation: null,
    });
    expect(first.indexing_ref).toBeTruthy();
    expect(first.target_resolution).toMatchObject({ served: null, indexing_ref: first.indexing_ref, requested: { kind: 'package', package_name: 'demo', version: null } });
    expect(first.indexing_estimate).toMatchObject({ sample_count: 0 });

    const workers = await h.startWorkers();
    try {
      const ready = await listOk({ target: 'npm:demo', wait_timeout_ms: 20_000 });
      expect(ready).toMatchObject({ code_index_state: 'current', indexing_status: 'indexed', indexed_version: '1.1.0', indexing_ref: null });
      expect(ready.resolution).toEqual({ requested_version: null, requested_ref: null, resolved_ref: '1.1.0', commit_sha: 'feedbeef' });
      expect(ready.target_resolution?.served).toEqual({
        kind: null,
        registry: 'npm',
        package_name: 'demo',
        version: '1.1.0',
        repo_url: 'https://github.com/owner/demo',
        git_ref: null,
        commit_sha: 'feedbeef',
      });
      expect(ready.entries.map((e) => `${e.kind}:${e.path}`)).toEqual([
        'file:.eslintrc.js',
        'file:README.md',
        'directory:bin',
        'directory:dist',
        'directory:docs',
        'file:package.json',
        'directory:src',
        'directory:test',
      ]);
      const dir = ready.entries.find((e) => e.path === 'src')!;
      expect(dir).toMatchObject({ read: null, browse: { target: 'npm:demo@1.1.0', paths: ['src'] }, byte_size: null });
      const readme = ready.entries.find((e) => e.path === 'README.md')!;
      expect(readme).toMatchObject({ language: 'markdown', file_type: 'md', intent: 'production', byte_size: 7, line_count: 1, read: { target: 'npm:demo@1.1.0', path: 'README.md' } });
      expect(readme.content_hash).toBe(`sha256:${createHash('sha256').update('# demo\n').digest('hex')}`);

      // Version 1.0.0 shares nothing but is prepared on demand too; then both are retry candidates.
      await listOk({ target: 'npm:demo@1.0.0', wait_timeout_ms: 20_000 });
      const again = await listOk({ target: 'npm:demo@^1.1' });
      expect(again.available_versions?.map((v) => v.version).sort()).toEqual(['1.0.0', '1.1.0']);
      expect(again.target_resolution?.requested?.version).toBe('^1.1');
    } finally {
      await workers.close();
    }
  });

  it('gives concurrent first requests one shared preparation', async () => {
    const responses = await Promise.all(Array.from({ length: 8 }, () => listOk({ target: 'npm:@scope/pkg@2.0.0' })));
    expect(new Set(responses.map((r) => r.indexing_ref)).size).toBe(1);
    const rows = await h.database.db.select().from(inventories).where(eq(inventories.identity, 'npm:@scope/pkg@2.0.0'));
    expect(rows).toHaveLength(1);
    const before = h.registry.requests.filter((p) => p.endsWith('.tgz') && p.includes('@scope')).length;
    const workers = await h.startWorkers();
    try {
      const ready = await listOk({ target: 'npm:@scope/pkg@2.0.0', wait_timeout_ms: 20_000 });
      expect(ready.entries.map((e) => e.path)).toEqual(['index.js']);
      expect(h.registry.requests.filter((p) => p.endsWith('.tgz') && p.includes('@scope')).length - before).toBe(1);
    } finally {
      await workers.close();
    }
  });

  it('answers 404 LIST_TARGET_NOT_FOUND for an unknown package or version', async () => {
    for (const target of ['npm:no-such-package', 'npm:demo@9.9.9', 'npm:demo@^7', 'npm:demo@nightly']) {
      const res = await list({ target });
      expect(res.statusCode, target).toBe(404);
      expect(res.json()).toMatchObject({ code: 'LIST_TARGET_NOT_FOUND' });
    }
  });

  it('answers 502 LIST_UNSUPPORTED_API for a registry document it cannot read, never 404', async () => {
    for (const target of ['npm:bad-versions', 'npm:array-versions@1.0.0', 'npm:bad-tags']) {
      const res = await list({ target });
      expect(res.statusCode, target).toBe(502);
      expect(res.json(), target).toMatchObject({ code: 'LIST_UNSUPPORTED_API' });
    }
  });

  it('answers 409 with the repository and commit when the tarball is unavailable, never widening', async () => {
    const workers = await h.startWorkers();
    try {
      const first = await listOk({ target: 'npm:gone@1.0.0' });
      expect(first.code_index_state).toBe('pending');
      const res = await list({ target: 'npm:gone@1.0.0', wait_timeout_ms: 20_000 });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        code: 'SOURCE_INVENTORY_SCOPE_UNAVAILABLE',
        repo_url: 'https://git.example.test/owner/gone',
        commit_sha: 'abc123',
      });
      // A repository root safe to follow: no credentials, no git+ or .git, no fragment.
      await listOk({ target: 'npm:leaky@1.0.0' });
      const leaky = await list({ target: 'npm:leaky@1.0.0', wait_timeout_ms: 20_000 });
      expect(leaky.statusCode).toBe(409);
      expect(leaky.json()).toMatchObject({ repo_url: 'https://git.example.test/owner/leaky', commit_sha: 'def456' });
      expect(leaky.body).not.toContain('s3cret');
    } finally {
      await workers.close();
    }
  });

  it('shows a failed preparation (a gzip bomb) as failed, not as an error', async () => {
    const workers = await h.startWorkers();
    try {
      const res = await listOk({ target: 'npm:bomb@1.0.0', wait_timeout_ms: 20_000 });
      expect(res).toMatchObject({ code_index_state: 'failed', indexing_status: 'failed', entries: [], indexed_version: null });
      expect(res.target_resolution?.freshness_reason).toBe('compression_ratio');
    } finally {
      await workers.close();
    }
  });
});

describe('listing a prepared package', () => {
  beforeAll(async () => {
    const workers = await h.startWorkers();
    await listOk({ target: 'npm:demo@1.1.0', wait_timeout_ms: 20_000 });
    await listOk({ target: 'npm:wide@1.0.0', wait_timeout_ms: 20_000 });
    await workers.close();
  });

  const demo = 'npm:demo@1.1.0';

  it('selects with literal paths, globs, recursion and filters, in byte order', async () => {
    const recursive = await listOk({ target: demo, paths: ['src'], recursive: true });
    expect(recursive.entries.map((e) => e.path)).toEqual(['src/index.js', 'src/util/strings.js', 'src/weird name+#%.js', 'src/ünïcode.js']);
    const globbed = await listOk({ target: demo, paths: ['**/*.js', 'README.md'] });
    expect(globbed.entries.map((e) => e.path)).toEqual([
      '.eslintrc.js',
      'README.md',
      'dist/index.js',
      'src/index.js',
      'src/util/strings.js',
      'src/weird name+#%.js',
      'src/ünïcode.js',
      'test/a.test.js',
    ]);
    const intents = await listOk({ target: demo, recursive: true, intents: ['test', 'generated'] });
    expect(intents.entries.map((e) => `${e.path}:${e.intent ?? ''}`)).toEqual(['dist/index.js.map:generated', 'test/a.test.js:test']);
    const production = await listOk({ target: demo, paths: ['dist'], intents: ['production'] });
    expect(production.entries.map((e) => e.path)).toEqual(['dist/index.js']);
    const binary = await listOk({ target: demo, paths: ['bin/tool'] });
    expect(binary.entries[0]).toMatchObject({ line_count: null, byte_size: 3000 });
  });

  it.each([1, 2, 3, 4, 5, 6, 7])('pages with limit %i exactly through the unpaged listing', async (limit) => {
    const whole = await listOk({ target: demo, recursive: true, limit: 500 });
    const seen: ListEntryType[] = [];
    let after: string | undefined;
    for (let guard = 0; guard < 50; guard++) {
      const page = await listOk({ target: demo, recursive: true, limit, ...(after ? { after } : {}) });
      expect(page.entries.length).toBeLessThanOrEqual(limit);
      seen.push(...page.entries);
      if (!page.has_more) {
        expect(page.next_cursor).toBeNull();
        break;
      }
      after = page.next_cursor ?? undefined;
    }
    expect(seen).toEqual(whole.entries);
  });

  it('treats a whitespace-only after as blank: page one', async () => {
    const first = await listOk({ target: demo, recursive: true, limit: 2 });
    for (const after of ['', ' ', '\t\n ']) {
      const page = await listOk({ target: demo, recursive: true, limit: 2, after });
      expect(page.entries, JSON.stringify(after)).toEqual(first.entries);
    }
  });

  it('refuses a cursor replayed with another selection, or altered', async () => {
    const page = await listOk({ target: demo, recursive: true, limit: 2 });
    const cursor = page.next_cursor!;
    await expect400({ target: demo, recursive: true, limit: 3, after: cursor }, /another selection/);
    await expect400({ target: demo, recursive: false, limit: 2, after: cursor }, /another selection/);
    await expect400({ target: demo, recursive: true, limit: 2, languages: ['javascript'], after: cursor }, /another selection/);
    await expect400({ target: 'npm:demo@1.0.0', recursive: true, limit: 2, after: cursor }, /another selection/);
    const altered = cursor.slice(0, 5) + (cursor[5] === 'x' ? 'y' : 'x') + cursor.slice(6);
    await expect400({ target: demo, recursive: true, limit: 2, after: altered }, /not a valid cursor/);
    expect((await list({ target: demo, recursive: true, limit: 2, after: cursor })).statusCode).toBe(200);
  });

  it('sends pages gzip-compressed to clients that accept it', async () => {
    const body = { target: demo, recursive: true };
    const plain = await list(body);
    const zipped = await h.app.inject({
      method: 'POST',
      url: '/v1/list',
      headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'br;q=1, gzip;q=0.5' },
      payload: body,
    });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['vary']).toBe('accept-encoding');
    expect(gunzipSync(zipped.rawPayload).toString('utf8')).toBe(plain.body);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const refused = await h.app.inject({
      method: 'POST',
      url: '/v1/list',
      headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip;q=0' },
      payload: body,
    });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('refuses a page over 2 MiB', async () => {
    await expect400({ target: 'npm:wide@1.0.0', recursive: true, limit: 500 }, /larger than 2097152 bytes/);
    expect((await list({ target: 'npm:wide@1.0.0', recursive: true, limit: 100 })).statusCode).toBe(200);
  });
});

describe('reading', () => {
  const demo = 'npm:demo@1.1.0';

  it('round-trips every listed file byte for byte through its read action', async () => {
    const page = await listOk({ target: demo, recursive: true, limit: 500 });
    expect(page.entries.length).toBe(Object.keys(DEMO_FILES).length);
    for (const entry of page.entries) {
      const parts: Buffer[] = [];
      let offset = 0;
      for (let guard = 0; guard < 10; guard++) {
        const res = await read(entry.read!.target, entry.read!.path!, { offset: String(offset) });
        expect(res.statusCode, entry.path).toBe(200);
        const body = res.json<ReadResponseType>();
        expect(body).toMatchObject({ path: entry.path, content_hash: entry.content_hash, byte_size: entry.byte_size, canonical_target: demo });
        parts.push(Buffer.from(body.content, body.encoding === 'base64' ? 'base64' : 'utf8'));
        if (!body.truncated) break;
        offset = body.next_offset!;
      }
      const bytes = Buffer.concat(parts);
      expect(bytes.equals(Buffer.from(DEMO_FILES[entry.path]!)), entry.path).toBe(true);
      expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(entry.content_hash);
    }
  });

  it('encodes text as UTF-8 and other bytes as base64, slicing on character boundaries', async () => {
    const text = (await read(demo, 'src/ünïcode.js')).json<ReadResponseType>();
    expect(text).toMatchObject({ encoding: 'utf-8', content: 'export const u = "ü";\n', truncated: false, next_offset: null, served: { version: '1.1.0' } });
    const binary = (await read(demo, 'bin/tool')).json<ReadResponseType>();
    expect(binary.encoding).toBe('base64');
    const slice = (await read(demo, 'docs/big.txt', { offset: '5', length: '10' })).json<ReadResponseType>();
    expect(slice.encoding).toBe('utf-8');
    expect(slice.truncated).toBe(true);
    expect(Buffer.byteLength(slice.content)).toBeLessThanOrEqual(10);
    expect(BIG.subarray(5, 5 + Buffer.byteLength(slice.content)).toString('utf8')).toBe(slice.content);
    expect(slice.next_offset).toBe(5 + Buffer.byteLength(slice.content));
  });

  it('sends reads gzip-compressed to clients that accept it, the same answer each time', async () => {
    const url = `/v1/read?${new URLSearchParams({ target: demo, path: 'docs/big.txt', length: '5000' }).toString()}`;
    const plain = await h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (let i = 0; i < 2; i++) {
      const zipped = await h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' } });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers['vary']).toBe('accept-encoding');
      expect(zipped.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(gunzipSync(zipped.rawPayload).toString('utf8')).toBe(plain.body);
    }
    // Another slice of the same file, and the same file through another spelling of the target, are their own answers.
    const next = (await read(demo, 'docs/big.txt', { offset: '5000', length: '5000' })).json<ReadResponseType>();
    expect(BIG.subarray(5000, 5000 + Buffer.byteLength(next.content)).toString('utf8')).toBe(next.content);
    const spelled = (await read(` ${demo}`, 'docs/big.txt', { length: '5000' })).json<ReadResponseType>();
    expect(spelled.requested_target).toBe(demo);
    expect(spelled.content).toBe(plain.json<ReadResponseType>().content);
    const small = await h.app.inject({ method: 'GET', url: `/v1/read?${new URLSearchParams({ target: demo, path: 'src/ünïcode.js' }).toString()}`, headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' } });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('answers unknown paths and directories with 404, unprepared targets with 409', async () => {
    const missing = await read(demo, 'nope.js');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'READ_PATH_NOT_FOUND' });
    expect((await read(demo, 'src')).json<{ detail: string }>().detail).toMatch(/is a directory/);
    const unknown = await read('npm:no-such-package@1.0.0', 'x');
    expect(unknown.statusCode).toBe(404);
    const invalid = await h.app.inject({ method: 'GET', url: '/v1/read?target=npm:demo', headers: { authorization: `Bearer ${token}` } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json<{ detail: string }>().detail).toMatch(/path is required/);
  });
});
