import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inventories } from '../../src/db/schema/index.js';
import type { ReadResponseType } from '../../src/routes/inventory/schemas.js';
import { GitHost, type FixtureFile } from '../helpers/git-host.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';

const BINARY = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 131) % 256));
const LARGE = Buffer.alloc(300 * 1024, 'x');
let submoduleSha = '';

function filesV1(): Record<string, FixtureFile> {
  return {
    'README.md': '# widget\n',
    'docs/guide.md': '# Guide\nlocal documentation\n',
    'src/index.ts': 'export const version = 1;\n',
    'src/weird name+#%?.ts': 'export const weird = true;\n',
    'src/ünïcode.ts': 'export const u = "ü";\n',
    'test/index.test.ts': 'test("x", () => {});\n',
    'assets/logo.bin': BINARY,
    'assets/large.txt': LARGE,
    'link-to-readme': { symlink: 'README.md' },
    'escape-link': { symlink: '../../../etc/passwd' },
    'vendor/lib': { submodule: submoduleSha },
  };
}

/** A non-UTF-8 path (latin-1 é): git stores it, JSON cannot name it. */
const RAW_PATH = Buffer.from([0x6c, 0x61, 0x74, 0x69, 0x6e, 0xe9, 0x2e, 0x74, 0x78, 0x74]);

let h: JobsHarness;
let host: GitHost;
/** A git host that answers every request with HTTP 500, and the port of one that is gone. */
let failing: Server;
let closedPort = 0;
let cacheDir: string;
let token: string;
const { list, listOk, read } = inventoryClient(
  () => h.app,
  () => token,
);
const shas: Record<string, string> = {};

beforeAll(async () => {
  host = await GitHost.start();
  cacheDir = await mkdtemp(join(tmpdir(), 'pkgscope-gitcache-'));
  await host.create('acme', 'sub');
  submoduleSha = await host.commit('acme', 'sub', 'main', { 'lib.c': 'int x;\n' });
  await host.create('acme', 'widget');
  shas['first'] = await host.commit('acme', 'widget', 'main', { 'README.md': '# widget, first\n' });
  shas['v1'] = await host.commit('acme', 'widget', 'main', filesV1(), [RAW_PATH]);
  await host.tag('acme', 'widget', 'v1.0.0', shas['v1']);
  await host.tag('acme', 'widget', 'light', shas['v1'], true);
  shas['release'] = await host.commit('acme', 'widget', 'release', { ...filesV1(), 'CHANGELOG.md': '# 1.0.1\n' });
  // `dup` is a branch at v1 and a tag at release: ambiguous.
  await host.setBranch('acme', 'widget', 'dup', shas['v1']);
  await host.tag('acme', 'widget', 'dup', shas['release'], true);
  // `same` is a branch and a tag at one commit: not ambiguous.
  await host.setBranch('acme', 'widget', 'same', shas['v1']);
  await host.tag('acme', 'widget', 'same', shas['v1'], true);
  const [a, b] = await host.collidingCommits('acme', 'widget');
  await host.setBranch('acme', 'widget', 'collide-a', a);
  await host.setBranch('acme', 'widget', 'collide-b', b);
  shas['collideA'] = a;
  shas['collideB'] = b;
  await host.create('acme', 'trunk', 'trunk');
  shas['trunk'] = await host.commit('acme', 'trunk', 'trunk', { 'main.go': 'package main\n' });

  failing = createServer((_req, res) => res.writeHead(500).end('broken'));
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  const gone = createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  closedPort = (gone.address() as AddressInfo).port;
  await new Promise<void>((resolve) => gone.close(() => resolve()));

  h = await startJobsHarness({
    GIT_HOSTS: JSON.stringify({
      github: host.baseUrl,
      gitlab: `http://127.0.0.1:${(failing.address() as AddressInfo).port}`,
      bitbucket: `http://127.0.0.1:${closedPort}`,
    }),
    GIT_REFS_TTL_MS: '0',
    GIT_CACHE_DIR: cacheDir,
    INVENTORY_MAX_FILE_BYTES: String(256 * 1024),
  });
  token = await h.token('repo-lister');
});

afterAll(async () => {
  await h.close();
  await new Promise<void>((resolve) => failing.close(() => resolve()));
  await host.close();
  await rm(cacheDir, { recursive: true, force: true });
});




async function withWorkers<T>(work: () => Promise<T>): Promise<T> {
  const workers = await h.startWorkers();
  try {
    return await work();
  } finally {
    await workers.close();
  }
}

describe('ref resolution', () => {
  it('resolves the default branch, branches, tags (annotated and light) and full or abbreviated SHAs to one snapshot per commit', async () => {
    const pending = await listOk({ target: 'github:acme/widget@v1.0.0' });
    expect(pending).toMatchObject({
      inventory_kind: 'source',
      canonical_target: `github:acme/widget@${shas['v1']}`,
      code_index_state: 'pending',
      entries: [],
      resolution: { requested_ref: 'v1.0.0', resolved_ref: null },
    });
    await withWorkers(async () => {
      const ready = await listOk({ target: 'github:acme/widget@v1.0.0', wait_timeout_ms: 30_000 });
      expect(ready).toMatchObject({
        code_index_state: 'current',
        indexed_version: 'v1.0.0',
        canonical_target: `github:acme/widget@${shas['v1']}`,
        resolution: { requested_version: null, requested_ref: 'v1.0.0', resolved_ref: 'v1.0.0', commit_sha: shas['v1'] },
      });
      expect(ready.target_resolution?.served).toMatchObject({ repo_url: `${host.baseUrl}/acme/widget.git`, git_ref: 'v1.0.0', commit_sha: shas['v1'] });
      expect(ready.entries[0]?.read?.target ?? ready.entries[0]?.browse?.target).toBe(`github:acme/widget@${shas['v1']}`);

      // Every other name of the same commit is served at once from the same inventory.
      for (const ref of ['light', 'same', shas['v1']!, shas['v1']!.slice(0, 7), shas['v1']!.toUpperCase().slice(0, 12)]) {
        const page = await listOk({ target: `github:acme/widget@${ref}` });
        expect(page.code_index_state, ref).toBe('current');
        expect(page.canonical_target, ref).toBe(`github:acme/widget@${shas['v1']}`);
      }
      const rows = await h.database.db.select().from(inventories).where(eq(inventories.identity, `github:acme/widget@${shas['v1']}`));
      expect(rows).toHaveLength(1);

      // No ref: the default branch (HEAD), whatever its name.
      const trunk = await listOk({ target: 'github:acme/trunk', wait_timeout_ms: 30_000 });
      expect(trunk).toMatchObject({ indexed_version: 'trunk', resolution: { requested_ref: null, resolved_ref: 'trunk', commit_sha: shas['trunk'] } });
      expect(trunk.entries.map((e) => e.path)).toEqual(['main.go']);

      // An abbreviation of a commit no branch or tag points at is looked up in the history.
      const old = await listOk({ target: `github:acme/widget@${shas['first']!.slice(0, 8)}`, wait_timeout_ms: 30_000 });
      expect(old).toMatchObject({ canonical_target: `github:acme/widget@${shas['first']}`, code_index_state: 'current' });
      expect(old.entries.map((e) => e.path)).toEqual(['README.md']);
    });
  });

  it('lists indexed refs as available and the others as suggestions', async () => {
    const page = await listOk({ target: 'github:acme/widget@v1.0.0' });
    const available = page.target_resolution?.available_refs.map((r) => r.ref) ?? [];
    expect(available).toEqual(expect.arrayContaining(['v1.0.0', 'light', 'same']));
    expect(page.available_versions?.map((r) => r.ref)).toEqual(available);
    const suggested = page.target_resolution?.suggested_refs.map((r) => r.ref) ?? [];
    expect(suggested).toEqual(expect.arrayContaining(['release', 'dup']));
    expect(suggested).not.toContain('v1.0.0');
  });

  it('answers 422 AMBIGUOUS_REF for a branch/tag clash and for an abbreviation naming two commits', async () => {
    const clash = await list({ target: 'github:acme/widget@dup' });
    expect(clash.statusCode).toBe(422);
    expect(clash.json()).toMatchObject({ code: 'AMBIGUOUS_REF' });
    expect(clash.json<{ detail: string }>().detail).toMatch(/both a branch .* and a tag/);
    const prefix = shas['collideA']!.slice(0, 4);
    expect(shas['collideB']!.startsWith(prefix)).toBe(true);
    const abbreviated = await list({ target: `github:acme/widget@${prefix}` });
    expect(abbreviated.statusCode).toBe(422);
    expect(abbreviated.json()).toMatchObject({ code: 'AMBIGUOUS_REF' });
  });

  it('answers 404 LIST_TARGET_NOT_FOUND for a missing repository, ref or commit', async () => {
    const unknownCommit = '0123456789abcdef0123456789abcdef01234567';
    for (const target of ['github:acme/nothing', 'github:nobody/widget@main', 'github:acme/widget@no-such-branch', 'github:acme/widget@abcdef1', `github:acme/widget@${unknownCommit}`]) {
      const res = await list({ target });
      expect(res.statusCode, target).toBe(404);
      expect(res.json(), target).toMatchObject({ code: 'LIST_TARGET_NOT_FOUND' });
    }
    const bad = await list({ target: 'github:acme/widget@a..b' });
    expect(bad.statusCode).toBe(400);
    // An unknown commit is refused before anything is admitted for it.
    const rows = await h.database.db.select().from(inventories).where(eq(inventories.identity, `github:acme/widget@${unknownCommit}`));
    expect(rows).toHaveLength(0);
  });

  it('answers 502 for a git host that fails or cannot be reached, never "not found"', async () => {
    for (const target of ['gitlab:acme/widget', 'bitbucket:acme/widget@main']) {
      const res = await list({ target });
      expect(res.statusCode, target).toBe(502);
      expect(res.json(), target).toMatchObject({ code: 'LIST_UNSUPPORTED_API' });
      expect(res.body, target).not.toContain(String(closedPort));
    }
  });

  it('suggests each ref name once, even when a branch and a tag share it', async () => {
    const page = await listOk({ target: 'github:acme/widget@release' });
    const suggested = page.target_resolution?.suggested_refs.map((r) => r.ref) ?? [];
    expect(suggested.length).toBeGreaterThan(0);
    expect(new Set(suggested).size).toBe(suggested.length);
  });
});

describe('snapshot contents', () => {
  const target = (): string => `github:acme/widget@${shas['v1']}`;

  it('covers the whole tree: local docs, tests, symlinks and submodules listed (never followed), non-UTF-8 paths left out', async () => {
    const page = await listOk({ target: target(), recursive: true, limit: 500 });
    const byPath = new Map(page.entries.map((e) => [e.path, e]));
    expect([...byPath.keys()].sort()).toEqual(
      [
        'README.md',
        'assets/large.txt',
        'assets/logo.bin',
        'docs/guide.md',
        'escape-link',
        'link-to-readme',
        'src/index.ts',
        'src/weird name+#%?.ts',
        'src/ünïcode.ts',
        'test/index.test.ts',
        'vendor/lib',
      ].sort(),
    );
    expect(byPath.get('docs/guide.md')).toMatchObject({ language: 'markdown', intent: 'production' });
    expect(byPath.get('test/index.test.ts')).toMatchObject({ intent: 'test', language: 'typescript' });
    expect(byPath.get('link-to-readme')).toMatchObject({ file_type: 'symlink', byte_size: 'README.md'.length, line_count: null });
    expect(byPath.get('vendor/lib')).toMatchObject({ file_type: 'submodule', byte_size: null, content_hash: null, intent: 'vendor' });
    // Over the per-file limit: listed without content or size (the partial clone never fetched it).
    expect(byPath.get('assets/large.txt')).toMatchObject({ content_hash: null, byte_size: null });
    const [row] = await h.database.db.select().from(inventories).where(eq(inventories.identity, target()));
    expect(row?.facts.skipped?.some((note) => note.includes('is not UTF-8'))).toBe(true);
  });

  it('round-trips every readable file byte for byte', async () => {
    const expected: Record<string, Buffer> = {};
    for (const [path, content] of Object.entries(filesV1())) {
      if (typeof content === 'string' || Buffer.isBuffer(content)) expected[path] = Buffer.from(content);
      else if ('symlink' in content) expected[path] = Buffer.from(content.symlink);
    }
    const page = await listOk({ target: target(), recursive: true, limit: 500 });
    let compared = 0;
    for (const entry of page.entries) {
      if (entry.content_hash === null) continue;
      const res = await read(entry.read!.target, entry.read!.path!);
      expect(res.statusCode, entry.path).toBe(200);
      const body = res.json<ReadResponseType>();
      expect(body).toMatchObject({ canonical_target: target(), served: { commit_sha: shas['v1'] } });
      const bytes = Buffer.from(body.content, body.encoding === 'base64' ? 'base64' : 'utf8');
      expect(bytes.equals(expected[entry.path]!), entry.path).toBe(true);
      expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(entry.content_hash);
      compared++;
    }
    expect(compared).toBe(9);
    const sub = await read(target(), 'vendor/lib');
    expect(sub.statusCode).toBe(409);
    expect(sub.json()).toMatchObject({ code: 'READ_CONTENT_UNAVAILABLE' });
  });

  it('pages a snapshot exactly like a package', async () => {
    const all = await listOk({ target: target(), recursive: true, limit: 500 });
    for (const limit of [1, 2, 3, 5]) {
      const seen: string[] = [];
      let after: string | undefined;
      for (let guard = 0; guard < 50; guard++) {
        const page = await listOk({ target: target(), recursive: true, limit, ...(after ? { after } : {}) });
        seen.push(...page.entries.map((e) => e.path));
        if (!page.has_more) break;
        after = page.next_cursor!;
      }
      expect(seen).toEqual(all.entries.map((e) => e.path));
    }
  });

  it('keeps its bare caches bounded to one directory per repository', async () => {
    const names = await readdir(cacheDir);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => n.endsWith('.git'))).toBe(true);
    expect(new Set(names).size).toBeLessThanOrEqual(2);
  });
});

describe('directory names that read as globs', () => {
  it('follows every directory’s own browse action to exactly its children (Next.js-style folders)', async () => {
    await host.create('acme', 'next');
    const dirs = ['app/[slug]', 'app/(group)', 'app/[...all]', 'a{b,c}', 'star*'];
    const files: Record<string, FixtureFile> = { 'app/s': 's\n', 'app/l': 'l\n', ab: 'ab\n', ac: 'ac\n', starry: 'starry\n' };
    for (const dir of dirs) {
      files[`${dir}/page.tsx`] = 'export default 1;\n';
      files[`${dir}/inner/x.ts`] = 'export {};\n';
    }
    await host.commit('acme', 'next', 'main', files);
    await withWorkers(() => listOk({ target: 'github:acme/next', wait_timeout_ms: 30_000 }));
    const browseAll = async (selector: { target: string; paths: string[] | null }, dir: string): Promise<void> => {
      const page = await listOk({ target: selector.target, paths: selector.paths ?? [] });
      const expected = Object.keys(files)
        .filter((p) => p.startsWith(`${dir}/`))
        .map((p) => p.slice(dir.length + 1).split('/')[0])
        .filter((name, i, all) => all.indexOf(name) === i)
        .map((name) => `${dir}/${name}`)
        .sort();
      expect(page.entries.map((e) => e.path).sort(), dir).toEqual(expected);
      for (const entry of page.entries) if (entry.kind === 'directory') await browseAll(entry.browse!, entry.path);
    };
    const root = await listOk({ target: 'github:acme/next' });
    const browsed = root.entries.filter((e) => e.kind === 'directory');
    expect(browsed.map((e) => e.path).sort()).toEqual(['a{b,c}', 'app', 'star*'].sort());
    for (const entry of browsed) await browseAll(entry.browse!, entry.path);
  });
});

describe('freshness', () => {
  it('repeats page one’s evidence on every continuation page, even after the new commit is ready', async () => {
    await host.create('acme', 'paged');
    const before = await host.commit('acme', 'paged', 'main', { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    await withWorkers(() => listOk({ target: 'github:acme/paged@main', wait_timeout_ms: 30_000 }));
    const after = await host.commit('acme', 'paged', 'main', { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'd.txt': 'd\n' });
    const first = await listOk({ target: 'github:acme/paged@main', limit: 1 });
    expect(first).toMatchObject({ code_index_state: 'stale', canonical_target: `github:acme/paged@${after}`, resolution: { commit_sha: before } });
    const evidence = (page: typeof first) => {
      const { entries: _entries, has_more: _more, next_cursor: _cursor, indexing_estimate: _estimate, indexing_status: _status, indexing_ref: _ref, target_resolution, ...rest } = page;
      const { indexing_ref: _tref, available_refs: _available, ...identity } = target_resolution!;
      return { ...rest, available_versions: null, target_resolution: identity };
    };
    // The new commit gets ready meanwhile: the cursor still pages the snapshot page one served, described as page one did.
    await withWorkers(() => listOk({ target: `github:acme/paged@${after}`, wait_timeout_ms: 30_000 }));
    let cursor = first.next_cursor;
    const seen = first.entries.map((e) => e.path);
    while (cursor !== null) {
      const next = await listOk({ target: 'github:acme/paged@main', limit: 1, after: cursor });
      expect(evidence(next)).toEqual(evidence(first));
      expect(next.target_resolution?.resolved_requested?.commit_sha).toBe(after);
      expect(next.target_resolution?.served?.commit_sha).toBe(before);
      seen.push(...next.entries.map((e) => e.path));
      cursor = next.next_cursor;
    }
    expect(seen).toEqual(['a.txt', 'b.txt', 'c.txt']);
    // A fresh request moves on to the new commit.
    expect(await listOk({ target: 'github:acme/paged@main', limit: 1 })).toMatchObject({ code_index_state: 'current', resolution: { commit_sha: after } });
  });

  it('serves a moved branch from its indexed commit as stale while the new commit is prepared', async () => {
    await host.create('acme', 'moving');
    const before = await host.commit('acme', 'moving', 'main', { 'a.txt': 'one\n' });
    await withWorkers(async () => {
      const ready = await listOk({ target: 'github:acme/moving@main', wait_timeout_ms: 30_000 });
      expect(ready).toMatchObject({ code_index_state: 'current', resolution: { commit_sha: before } });
    });
    const after = await host.commit('acme', 'moving', 'main', { 'a.txt': 'one\n', 'b.txt': 'two\n' });
    const stale = await listOk({ target: 'github:acme/moving@main' });
    expect(stale).toMatchObject({
      code_index_state: 'stale',
      indexing_status: 'pending',
      indexed_version: 'main',
      canonical_target: `github:acme/moving@${after}`,
      resolution: { requested_ref: 'main', resolved_ref: 'main', commit_sha: before },
    });
    expect(stale.indexing_ref).toBeTruthy();
    expect(stale.target_resolution).toMatchObject({
      freshness: 'stale',
      served: { commit_sha: before },
      resolved_requested: { commit_sha: after },
    });
    expect(stale.target_resolution?.freshness_reason).toMatch(/moved/);
    expect(stale.entries.map((e) => e.path)).toEqual(['a.txt']);
    expect(stale.entries[0]?.read?.target).toBe(`github:acme/moving@${before}`);
    // Reads follow what is served.
    const readStale = await read('github:acme/moving@main', 'a.txt');
    expect(readStale.json<ReadResponseType>()).toMatchObject({ canonical_target: `github:acme/moving@${before}` });

    await withWorkers(async () => {
      const current = await listOk({ target: 'github:acme/moving@main', wait_timeout_ms: 30_000 });
      expect(current).toMatchObject({ code_index_state: 'current', resolution: { commit_sha: after } });
      expect(current.entries.map((e) => e.path)).toEqual(['a.txt', 'b.txt']);
    });
  });

  it('answers a read of a commit still being prepared with 409 TARGET_NOT_READY', async () => {
    await host.create('acme', 'fresh');
    await host.commit('acme', 'fresh', 'main', { 'x.txt': 'x\n' });
    const res = await read('github:acme/fresh', 'x.txt');
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'TARGET_NOT_READY' });
  });

  it('shows a commit that vanished before it could be fetched as failed', async () => {
    await host.create('acme', 'rewritten');
    const keep = await host.commit('acme', 'rewritten', 'main', { 'kept.txt': 'kept\n' });
    const doomed = await host.commit('acme', 'rewritten', 'main', { 'doomed.txt': 'doomed\n' });
    const pending = await listOk({ target: 'github:acme/rewritten@main' });
    expect(pending).toMatchObject({ code_index_state: 'pending', canonical_target: `github:acme/rewritten@${doomed}` });
    // A force-push and a garbage collection on the host: the commit is gone.
    const bare = host.bare('acme', 'rewritten');
    await host.setBranch('acme', 'rewritten', 'main', keep);
    await host.git(bare, ['reflog', 'expire', '--expire=now', '--all']);
    await host.git(bare, ['gc', '--quiet', '--prune=now']);
    // Not yet attempted (no worker has run since it was admitted).
    const [row] = await h.database.db.select().from(inventories).where(eq(inventories.identity, `github:acme/rewritten@${doomed}`));
    expect(row?.state).toBe('pending');
    await withWorkers(async () => {
      const page = await listOk({ target: `github:acme/rewritten@${doomed}`, wait_timeout_ms: 30_000 });
      expect(page).toMatchObject({ code_index_state: 'failed', indexing_status: 'failed', entries: [] });
      expect(page.target_resolution?.freshness_reason).toBe('fetch_failed');
    });
  });
});
