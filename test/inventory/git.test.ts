import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobReader, GitError, GitSource, listTree } from '../../src/inventory/sources/git.js';
import { parseLsRemote, resolveRef } from '../../src/inventory/sources/git-refs.js';
import { remoteFailure } from '../../src/inventory/sources/git-failure.js';
import { GitHost } from '../helpers/git-host.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

describe('ref parsing and resolution', () => {
  const refs = parseLsRemote(
    [
      `ref: refs/heads/develop\tHEAD`,
      `${A}\tHEAD`,
      `${A}\trefs/heads/develop`,
      `${B}\trefs/heads/main`,
      `${C}\trefs/tags/v1`,
      `${B}\trefs/tags/v1^{}`,
      `${C}\trefs/tags/main`,
      `${A}\trefs/pull/1/head`,
    ].join('\n'),
  );

  it('reads HEAD, branches and peeled tags', () => {
    expect(refs.head).toBe('develop');
    expect([...refs.branches]).toEqual([
      ['develop', A],
      ['main', B],
    ]);
    expect(refs.tags.get('v1')).toBe(B);
  });

  it('resolves each kind of ref and refuses clashes', () => {
    expect(resolveRef(refs, null)).toEqual({ kind: 'found', commit: A, refName: 'develop', refKind: 'branch' });
    expect(resolveRef(refs, 'v1')).toMatchObject({ kind: 'found', commit: B, refKind: 'tag' });
    expect(resolveRef(refs, 'main')).toMatchObject({ kind: 'ambiguous' });
    expect(resolveRef(refs, 'bbbbbbb')).toMatchObject({ kind: 'found', commit: B, refKind: 'commit' });
    expect(resolveRef(refs, C.toUpperCase())).toMatchObject({ kind: 'found', commit: C });
    expect(resolveRef(refs, 'dddd')).toEqual({ kind: 'abbreviation' });
    expect(resolveRef(refs, 'nope')).toEqual({ kind: 'not_found' });
  });
});

describe('fetching and reading a commit', () => {
  let host: GitHost;
  let cacheDir: string;
  let sha = '';
  const big = Buffer.alloc(3 * 1024 * 1024 + 17, 'y');

  beforeAll(async () => {
    host = await GitHost.start();
    cacheDir = await mkdtemp(join(tmpdir(), 'pkgscope-gitcache-'));
    await host.create('o', 'r');
    const files: Record<string, string | Buffer> = { 'big.txt': big, 'huge.bin': Buffer.alloc(2 * 1024 * 1024 + 1, 1) };
    for (let i = 0; i < 50; i++) files[`f/${i}.txt`] = `file ${i}\n`.repeat(i);
    sha = await host.commit('o', 'r', 'main', files);
  });
  afterAll(async () => {
    await host.close();
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('fetches one commit partially, lists it and streams blobs through one cat-file process', async () => {
    const git = new GitSource({ hosts: { github: host.baseUrl, gitlab: host.baseUrl, bitbucket: host.baseUrl }, cacheDir, maxCachedRepos: 1 });
    const url = git.repoUrl('github', 'o', 'r');
    await git.withCommit(url, sha, 4 * 1024 * 1024, async (repo) => {
      const tree = await listTree(repo, sha, 10_000);
      expect(tree).toHaveLength(52);
      const reader = new BlobReader(repo);
      try {
        // Asked for at once: answered in order, whole.
        const entries = tree.filter((e) => e.path.toString() !== 'huge.bin');
        const blobs = await Promise.all(entries.map((e) => reader.read(e.sha)));
        blobs.forEach((bytes, i) => {
          const entry = entries[i]!;
          expect(bytes.length).toBe(entry.size);
          if (entry.path.toString() === 'big.txt') expect(bytes.equals(big)).toBe(true);
        });
      } finally {
        reader.close();
      }
    });
    // A second commit fetch with a small blob limit leaves the large blobs out.
    await git.withCommit(url, sha, 1024 * 1024, async (repo) => {
      const tree = await listTree(repo, sha, 10_000);
      // Already in the cache from the first fetch: present, with sizes.
      expect(tree.find((e) => e.path.toString() === 'big.txt')).toMatchObject({ size: big.length, missing: false });
    });
    const other = new GitSource({ hosts: { github: host.baseUrl, gitlab: host.baseUrl, bitbucket: host.baseUrl }, cacheDir: `${cacheDir}-b`, maxCachedRepos: 1 });
    try {
      await other.withCommit(url, sha, 1024 * 1024, async (repo) => {
        const tree = await listTree(repo, sha, 10_000);
        expect(tree.find((e) => e.path.toString() === 'big.txt')).toMatchObject({ size: null, missing: true });
        expect(tree.find((e) => e.path.toString() === 'f/3.txt')).toMatchObject({ size: 21, missing: false });
      });
    } finally {
      await rm(`${cacheDir}-b`, { recursive: true, force: true });
    }
    expect(await readdir(cacheDir)).toHaveLength(1);
  });
});

describe('how a remote failed', () => {
  it.each([
    ["fatal: '/srv/git/o/r.git' does not appear to be a git repository", 'missing'],
    ["fatal: repository 'https://git.example.test/o/r.git/' not found", 'missing'],
    ["fatal: unable to access 'https://git.example.test/o/r.git/': The requested URL returned error: 403", 'missing'],
    ['fatal: could not read Username for \'https://git.example.test\': terminal prompts disabled', 'missing'],
    [`fatal: remote error: upload-pack: not our ref ${A}`, 'missing'],
    ["fatal: unable to access 'https://git.example.test/o/r.git/': The requested URL returned error: 502", 'unavailable'],
    ["fatal: unable to access 'http://127.0.0.1:1/o/r.git/': Failed to connect to 127.0.0.1 port 1: Couldn't connect to server", 'unavailable'],
    ["fatal: unable to access 'https://nowhere.invalid/o/r.git/': Could not resolve host: nowhere.invalid", 'unavailable'],
  ] as const)('%s → %s', (stderr, kind) => {
    expect(remoteFailure(new GitError('git failed', stderr, 128))).toBe(kind);
  });

});
