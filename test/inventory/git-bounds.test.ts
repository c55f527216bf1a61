import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilterIgnoredError, GitSource } from '../../src/inventory/sources/git.js';
import { GitHost } from '../helpers/git-host.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { track } from '../helpers/processes.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { baseline, postJson, probeBound, probeWhile } from '../helpers/probe.js';

/**
 * Git hosts that cost the API too much (issue #29, item 7): a million advertised refs, an
 * abbreviated SHA matching no tip asked over and over, a host that ignores `--filter`. The
 * host here is `git http-backend` behind a local HTTP server (git's own smart HTTP), counting
 * the fetches it serves.
 */

const MANY_REFS = 1_000_000;
const MAX_REFS = 1_000;
const MB = 1024 * 1024;

let host: GitHost;
let server: Server;
let base: string;
let h: JobsHarness;
let token: string;
let cacheDir: string;
const shas: Record<string, string> = {};
/** Fetches (not ref listings) the host served, per repository path. */
const fetches = new Map<string, number>();
const { list } = inventoryClient(
  () => h.app,
  () => token,
);

/** `git http-backend` as CGI: the smart HTTP protocol exactly as hosts serve it. */
function startHttpHost(root: string): Promise<Server> {
  const s = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const input = Buffer.concat(body);
      if (url.pathname.endsWith('/git-upload-pack') && input.includes('command=fetch')) {
        const repo = url.pathname.replace(/\/git-upload-pack$/, '');
        fetches.set(repo, (fetches.get(repo) ?? 0) + 1);
      }
      const cgi = track(spawn('git', ['http-backend'], {
        env: {
          ...process.env,
          GIT_PROJECT_ROOT: root,
          GIT_HTTP_EXPORT_ALL: '1',
          PATH_INFO: url.pathname,
          QUERY_STRING: url.search.slice(1),
          REQUEST_METHOD: req.method ?? 'GET',
          CONTENT_TYPE: req.headers['content-type'] ?? '',
          CONTENT_LENGTH: String(input.length),
          GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        },
      }), 'git http-backend');
      cgi.stdin.end(input);
      // Streamed as the backend writes it (a million refs are tens of MB): CGI headers first.
      let head = Buffer.alloc(0);
      let started = false;
      cgi.stdout.on('data', (c: Buffer) => {
        if (started) return void res.write(c);
        head = Buffer.concat([head, c]);
        const split = head.indexOf('\r\n\r\n');
        if (split === -1) return;
        started = true;
        let status = 200;
        for (const line of head.subarray(0, split).toString('latin1').split('\r\n')) {
          const [name, ...rest] = line.split(':');
          const value = rest.join(':').trim();
          if (name?.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
          else if (name) res.setHeader(name, value);
        }
        res.writeHead(status);
        res.write(head.subarray(split + 4));
      });
      cgi.on('close', () => (started ? res.end() : res.writeHead(500).end()));
      // The client may go away when this service stops reading (a listing cut short).
      res.on('close', () => cgi.kill('SIGKILL'));
    });
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

beforeAll(async () => {
  host = await GitHost.start();
  cacheDir = await mkdtemp(join(tmpdir(), 'pkgscope-gitcache-'));
  await host.create('acme', 'many');
  shas['many'] = await host.commit('acme', 'many', 'main', { 'README.md': '# many refs\n' });
  // A million branches at one commit, written as git writes packed refs (sorted, so git reads them as they are).
  const lines = ['# pack-refs with: peeled fully-peeled sorted '];
  for (let i = 0; i < MANY_REFS; i++) lines.push(`${shas['many']} refs/heads/branch-${String(i).padStart(7, '0')}`);
  await writeFile(join(host.bare('acme', 'many'), 'packed-refs'), `${lines.join('\n')}\n`);

  await host.create('acme', 'history');
  shas['old'] = await host.commit('acme', 'history', 'main', { 'a.txt': 'old\n' });
  shas['tip'] = await host.commit('acme', 'history', 'main', { 'a.txt': 'new\n' });

  await host.create('acme', 'small');
  await host.commit('acme', 'small', 'main', { 'a.txt': 'small\n' });

  server = await startHttpHost(host.root);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await startJobsHarness({
    GIT_HOSTS: JSON.stringify({ github: base, gitlab: host.baseUrl, bitbucket: host.baseUrl }),
    GIT_REFS_TTL_MS: '60000',
    GIT_MAX_REFS: String(MAX_REFS),
    GIT_CACHE_DIR: cacheDir,
    // The probes alone would reach the rate limit.
    RATE_LIMIT_PER_ACCOUNT: '0',
    // A million refs take a loaded machine longer than the default grace past the wait; what this
    // file checks is the bound on what the listing keeps, not the request deadline.
    LIST_DEADLINE_GRACE_MS: '300000',
  });
  token = await h.token('git-bounds');
}, 300_000);

afterAll(async () => {
  await h.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await host.close();
  await rm(cacheDir, { recursive: true, force: true });
});

describe('a host advertising a million refs', () => {
  it('is listed up to GIT_MAX_REFS refs, a ref past them is asked for by name, and the API stays responsive with bounded memory', async () => {
    const apiBase = await h.listen();
    // What listing two ordinary repositories of the same host costs the probes (git is spawned from this very process, and so is the host's backend).
    const quiet = await baseline(apiBase, token);
    const ordinary = await probeWhile(
      apiBase,
      token,
      Promise.all([postJson(apiBase, '/v1/list', token, { target: 'github:acme/history' }), postJson(apiBase, '/v1/list', token, { target: 'github:acme/small' })]),
    );
    expect(ordinary.result.map((r) => r.status)).toEqual([200, 200]);
    const before = process.memoryUsage();
    const { result, worstMs, probes } = await probeWhile(
      apiBase,
      token,
      Promise.all([
        postJson(apiBase, '/v1/list', token, { target: 'github:acme/many' }),
        // Past the first thousand: resolved by asking the host for this name alone.
        postJson(apiBase, '/v1/list', token, { target: 'github:acme/many@branch-0999999' }),
      ]),
    );
    const after = process.memoryUsage();
    for (const answer of result) {
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.json).toMatchObject({ canonical_target: `github:acme/many@${shas['many']}` });
    }
    expect(probes).toBeGreaterThan(0);
    expect(worstMs).toBeLessThan(probeBound(Math.max(quiet, ordinary.worstMs)));
    // A million refs held whole cost about 370 MB.
    expect(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers).toBeLessThan(100 * MB);
    // A name no ref has, even past the cut, is still a 404.
    const missing = await list({ target: 'github:acme/many@no-such-branch' });
    expect(missing.statusCode).toBe(404);
    // An abbreviation cannot be looked up among refs not read: the full SHA is asked for.
    const abbreviated = await list({ target: 'github:acme/many@abcdef12' });
    expect(abbreviated.statusCode).toBe(404);
    expect(abbreviated.json<{ detail: string }>().detail).toMatch(/full commit SHA/);
  }, 240_000);
});

describe('an abbreviated SHA matching no tip', () => {
  it('fetches the history once for many concurrent requests, and not again while the answer is kept', async () => {
    const repo = '/acme/history.git';
    fetches.set(repo, 0);
    const unknown = 'abcdef1234';
    const answers = await Promise.all(Array.from({ length: 8 }, () => list({ target: `github:acme/history@${unknown}` })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array.from({ length: 8 }, () => 404));
    expect(fetches.get(repo)).toBe(1);
    expect((await list({ target: `github:acme/history@${unknown}` })).statusCode).toBe(404);
    expect(fetches.get(repo)).toBe(1);
    // A commit of the history no tip names is found, once, by the same lookup.
    const old = shas['old']!.slice(0, 9);
    const found = await Promise.all(Array.from({ length: 4 }, () => list({ target: `github:acme/history@${old}` })));
    for (const answer of found) {
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json<{ canonical_target: string }>().canonical_target).toBe(`github:acme/history@${shas['old']}`);
    }
    expect(fetches.get(repo)).toBe(2);
  }, 120_000);
});

describe('a host that ignores --filter', () => {
  it('is stopped once it sent more than the blob size limit, and serves small repositories as before', async () => {
    await host.create('acme', 'nofilter');
    const big = await host.commit('acme', 'nofilter', 'main', { 'big.bin': randomBytes(2 * MB), 'small.txt': 'small\n' });
    await host.git(host.bare('acme', 'nofilter'), ['config', 'uploadpack.allowFilter', 'false']);
    await host.create('acme', 'tiny');
    const tiny = await host.commit('acme', 'tiny', 'main', { 'small.txt': 'small\n' });
    await host.git(host.bare('acme', 'tiny'), ['config', 'uploadpack.allowFilter', 'false']);
    const git = new GitSource({ hosts: { github: host.baseUrl, gitlab: host.baseUrl, bitbucket: host.baseUrl }, cacheDir, maxCachedRepos: 4 });
    const limit = 64 * 1024;
    await expect(git.withCommit(git.repoUrl('github', 'acme', 'nofilter'), big, limit, () => Promise.resolve('read'))).rejects.toBeInstanceOf(FilterIgnoredError);
    await expect(git.withCommit(git.repoUrl('github', 'acme', 'tiny'), tiny, limit, () => Promise.resolve('read'))).resolves.toBe('read');
  }, 120_000);
});
