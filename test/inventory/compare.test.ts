import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompareResponseType, DiffResponseType } from '../../src/routes/inventory/compare-schemas.js';
import type { RunningWorkers } from '../../src/processes/workers.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { packageTarball } from '../helpers/tarball.js';

/** `POST /v1/experimental/compare` and its diff between two prepared versions of a fixture package. */

const V1: Record<string, string | Buffer> = {
  'package.json': '{"name":"evolving","version":"1.0.0"}\n',
  'src/same.js': 'unchanged\n',
  'src/changed.js': 'line 1\nline 2\nline 3\n',
  'src/gone.js': 'bye\n',
  'bin/blob': Buffer.from([0, 1, 2, 3]),
  'docs/a b+#.md': 'old words\n',
};
const V2: Record<string, string | Buffer> = {
  'package.json': '{"name":"evolving","version":"2.0.0"}\n',
  'src/same.js': 'unchanged\n',
  'src/changed.js': 'line 1\nline two\nline 3\n',
  'src/new.js': 'hello\n',
  'bin/blob': Buffer.from([0, 1, 2, 4]),
  'docs/a b+#.md': 'new words\n',
};

let h: JobsHarness;
let token: string;
let workers: RunningWorkers;
const { listOk } = inventoryClient(
  () => h.app,
  () => token,
);

beforeAll(async () => {
  h = await startJobsHarness(
    {},
    {
      packages: {
        evolving: { versions: { '1.0.0': { _tarball: await packageTarball(V1) }, '2.0.0': { _tarball: await packageTarball(V2) } } },
        other: { versions: { '1.0.0': { _tarball: await packageTarball({ 'a.js': 'a\n' }) } } },
      },
    },
  );
  token = await h.token('comparer');
  workers = await h.startWorkers();
  for (const target of ['npm:evolving@1.0.0', 'npm:evolving@2.0.0']) await listOk({ target, wait_timeout_ms: 20_000 });
});
afterAll(async () => {
  await workers.close();
  await h.close();
});

const auth = () => ({ authorization: `Bearer ${token}` });
const compare = (body: Record<string, unknown>) =>
  h.app.inject({ method: 'POST', url: '/v1/experimental/compare', headers: auth(), payload: { base: 'npm:evolving@1.0.0', head: 'npm:evolving@2.0.0', ...body } });
const diff = (path: string, extra: Record<string, string> = {}) =>
  h.app.inject({ method: 'GET', url: `/v1/experimental/compare/diff?${new URLSearchParams({ base: 'npm:evolving@1.0.0', head: 'npm:evolving@2.0.0', path, ...extra }).toString()}`, headers: auth() });

describe('compare', () => {
  it('lists what was added, removed and modified by content hash, with both read actions', async () => {
    const res = await compare({});
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<CompareResponseType>();
    expect(body.changes.map((c) => `${c.status} ${c.path}`)).toEqual([
      'modified bin/blob',
      'modified docs/a b+#.md',
      'modified package.json',
      'modified src/changed.js',
      'removed src/gone.js',
      'added src/new.js',
    ]);
    expect(body.summary).toEqual({ added: 1, removed: 1, modified: 4, unchanged: 1 });
    const changed = body.changes.find((c) => c.path === 'src/changed.js');
    expect(changed).toMatchObject({
      base: { read: { target: 'npm:evolving@1.0.0', path: 'src/changed.js' }, byte_size: 21 },
      head: { read: { target: 'npm:evolving@2.0.0', path: 'src/changed.js' }, byte_size: 23 },
      diff: { base: 'npm:evolving@1.0.0', head: 'npm:evolving@2.0.0', path: 'src/changed.js' },
    });
    expect(body.changes.find((c) => c.path === 'bin/blob')?.diff).toBeNull();
    expect(body.changes.find((c) => c.path === 'src/gone.js')).toMatchObject({ head: null, base: { content_hash: expect.any(String) as unknown } });
  });

  it('pages with a cursor bound to both sides and the selection; paths select', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = (await compare({ limit: 4, ...(after ? { after } : {}) })).json<CompareResponseType>();
      seen.push(...page.changes.map((c) => c.path));
      if (!page.has_more) break;
      after = page.next_cursor ?? undefined;
    }
    expect(seen).toEqual(['bin/blob', 'docs/a b+#.md', 'package.json', 'src/changed.js', 'src/gone.js', 'src/new.js']);
    const first = (await compare({ limit: 1 })).json<CompareResponseType>();
    const moved = await compare({ limit: 1, paths: ['src'], after: first.next_cursor });
    expect(moved.statusCode).toBe(400);
    const src = (await compare({ paths: ['src'] })).json<CompareResponseType>();
    expect(src.changes.map((c) => c.path)).toEqual(['src/changed.js', 'src/gone.js', 'src/new.js']);
  });

  it('refuses targets of two different packages, naming the rule', async () => {
    await listOk({ target: 'npm:other@1.0.0', wait_timeout_ms: 20_000 });
    const res = await compare({ head: 'npm:other@1.0.0' });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ detail: string }>().detail).toMatch(/one package or refs of one repository/);
  });

  it('gives the unified diff of a path; binary files are reported as such', async () => {
    const res = await diff('src/changed.js', { context: '1' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<DiffResponseType>();
    expect(body).toMatchObject({ status: 'modified', binary: false, truncated: false });
    expect(body.diff).toContain('--- a/src/changed.js');
    expect(body.diff).toContain('+++ b/src/changed.js');
    expect(body.diff).toContain('-line 2\n+line two\n');
    expect(body.diff).toContain('@@ -1,3 +1,3 @@');
    const odd = (await diff('docs/a b+#.md')).json<DiffResponseType>();
    expect(odd.diff).toContain('-old words\n+new words');
    const added = (await diff('src/new.js')).json<DiffResponseType>();
    expect(added).toMatchObject({ status: 'added', base: null });
    expect(added.diff).toContain('+hello');
    expect((await diff('bin/blob')).json<DiffResponseType>()).toMatchObject({ binary: true, diff: null, status: 'modified' });
    expect((await diff('nowhere.js')).statusCode).toBe(404);
  });
});
