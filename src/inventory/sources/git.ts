import { spawn } from 'node:child_process';
import { killGroup } from '../../system/child.js';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, GitError, runGit } from './git-command.js';
import type { GitHostKind } from './git-hosts.js';
import { RemoteLookups, type RefResolution, type RemoteRefs } from './git-refs.js';
import { packBytes, stopPastBytes } from './git-bounds.js';

export { git, GitError } from './git-command.js';

/**
 * Git repositories as inventory sources, through the git CLI: `ls-remote` to resolve refs, a
 * fetch of exactly one commit into a bare cache (depth 1, large blobs filtered: a partial clone,
 * no checkout), `ls-tree -r -z` to list it and `cat-file --batch` to read its blobs.
 */

export interface TreeEntry {
  readonly mode: string;
  readonly type: 'blob' | 'tree' | 'commit';
  readonly sha: string;
  /** Blob size; null for submodules and for blobs left out by the partial clone. */
  readonly size: number | null;
  /** A blob over the size limit that the partial clone did not fetch. */
  readonly missing?: boolean;
  /** Raw path bytes (git paths need not be UTF-8). */
  readonly path: Buffer;
}

/** A fetch stopped because the host ignored the blob filter and sent more than the blob size limit. */
export class FilterIgnoredError extends GitError {
  constructor(maxBlobBytes: number, stderr: string) {
    super(`git fetch stopped: the host ignores --filter and sent more than ${maxBlobBytes} bytes`, stderr, 1);
    this.name = 'FilterIgnoredError';
  }
}

/** What a host that refuses partial clones says (git warns and fetches everything). */
const FILTER_IGNORED = /filtering not recognized by server/i;

export interface GitSourceOptions {
  readonly hosts: Readonly<Record<GitHostKind, string>>;
  /** Where the bare repository caches live. */
  readonly cacheDir: string;
  readonly maxCachedRepos?: number;
  readonly timeoutMs?: number;
  readonly refsTtlMs?: number;
  /** Refs of a remote read at most; past them its listing is truncated (and `ls-remote` stopped). */
  readonly maxRefs?: number;
}

export class GitSource {
  /** Ref listings and history lookups of the remotes. */
  private readonly remote: RemoteLookups;
  /** Work queued on each cache directory (one at a time per process). */
  private readonly busy = new Map<string, Promise<void>>();
  private readonly hosts: Readonly<Record<GitHostKind, string>>;
  private readonly cacheDir: string;
  private readonly maxCachedRepos: number;
  private readonly timeoutMs: number;

  constructor(options: GitSourceOptions) {
    this.hosts = options.hosts;
    this.cacheDir = options.cacheDir;
    this.maxCachedRepos = options.maxCachedRepos ?? 32;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.remote = new RemoteLookups({ timeoutMs: this.timeoutMs, refsTtlMs: options.refsTtlMs ?? 30_000, maxRefs: options.maxRefs ?? 20_000 });
  }

  repoUrl(host: GitHostKind, owner: string, repo: string): string {
    return `${this.hosts[host]}/${owner}/${repo}.git`;
  }

  /**
   * The remote's refs (cached briefly); null when the host says the repository does not exist or
   * cannot be read. A host that fails or cannot be reached rejects with a GitError instead.
   */
  refs(url: string): Promise<RemoteRefs | null> {
    return this.remote.refs(url);
  }

  /** The refs named `name` (branch, tag and its peeled commit; HEAD for null), asked of the remote alone. */
  namedRefs(url: string, name: string | null): Promise<RemoteRefs | null> {
    return this.remote.namedRefs(url, name);
  }

  /** Whether the remote has a commit no branch or tag points at. Throws a GitError when the host fails. */
  hasCommit(url: string, sha: string): Promise<boolean> {
    return this.remote.hasCommit(url, sha);
  }

  /** Resolves an abbreviated SHA against the remote's history (commits only). */
  resolveAbbreviation(url: string, prefix: string): Promise<RefResolution> {
    return this.remote.resolveAbbreviation(url, prefix);
  }

  /**
   * Fetches exactly `commit` into the repository's bare cache (depth 1, blobs over
   * `maxBlobBytes` filtered out: a partial clone, no checkout) and hands the cache to `work`.
   * Work on one cache is serialised in this process; should the cache be unusable (another
   * process holds its locks, or it is damaged) a fresh temporary repository is used instead.
   */
  async withCommit<T>(url: string, commit: string, maxBlobBytes: number, work: (repo: string) => Promise<T>): Promise<T> {
    const dir = join(this.cacheDir, `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.git`);
    const previous = this.busy.get(dir) ?? Promise.resolve();
    let release = (): void => undefined;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const chained = previous.then(() => mine);
    this.busy.set(dir, chained);
    await previous;
    try {
      let repo = dir;
      try {
        await this.fetchInto(dir, url, commit, maxBlobBytes);
      } catch (error) {
        // A fresh repository would time out or be sent too much alike.
        if (error instanceof FilterIgnoredError || (error instanceof GitError && error.exitCode === null)) throw error;
        repo = await mkdtemp(join(tmpdir(), 'pkgscope-git-'));
        try {
          await this.fetchInto(repo, url, commit, maxBlobBytes);
          return await work(repo);
        } finally {
          await rm(repo, { recursive: true, force: true });
        }
      }
      return await work(repo);
    } finally {
      release();
      if (this.busy.get(dir) === chained) this.busy.delete(dir);
      await this.prune(dir);
    }
  }

  /**
   * Fetches one commit with blobs over `maxBlobBytes` filtered out. A host that ignores the
   * filter sends every blob: the fetch then goes on only while what it received stays within
   * `maxBlobBytes` (the pack is kept, never unpacked, so its size is what arrived), and is
   * stopped past it rather than download a repository whole.
   */
  private async fetchInto(dir: string, url: string, commit: string, maxBlobBytes: number): Promise<void> {
    await mkdir(dir, { recursive: true });
    await git(['init', '--bare', '--quiet', dir], { timeoutMs: 10_000 });
    const stop = new AbortController();
    const filter: { ignored: boolean; unwatch: () => void } = { ignored: false, unwatch: () => undefined };
    const result = await runGit(
      ['-C', dir, '-c', 'fetch.unpackLimit=1', 'fetch', '--quiet', '--depth=1', '--no-tags', `--filter=blob:limit=${maxBlobBytes}`, '--', url, commit],
      {
        timeoutMs: this.timeoutMs,
        signal: stop.signal,
        onStderr: (text) => {
          if (filter.ignored || !FILTER_IGNORED.test(text)) return;
          filter.ignored = true;
          filter.unwatch = stopPastBytes(join(dir, 'objects', 'pack'), maxBlobBytes, () => stop.abort());
        },
      },
    );
    filter.unwatch();
    // A fetch may end before the watch looks: what it left is measured as well, and dropped if over.
    if (result.stopped || (filter.ignored && (await packBytes(join(dir, 'objects', 'pack'))) > maxBlobBytes)) {
      await rm(dir, { recursive: true, force: true });
      throw new FilterIgnoredError(maxBlobBytes, result.stderr);
    }
    if (result.code !== 0) throw new GitError(result.timedOut ? 'git fetch timed out' : 'git fetch failed', result.stderr, result.code);
    await utimes(dir, new Date(), new Date());
  }

  /** Keeps the most recently used caches only. */
  private async prune(keep: string): Promise<void> {
    let names: string[];
    try {
      names = (await readdir(this.cacheDir)).filter((n) => n.endsWith('.git'));
    } catch {
      return;
    }
    if (names.length <= this.maxCachedRepos) return;
    const dated = await Promise.all(
      names.map(async (name) => {
        const path = join(this.cacheDir, name);
        return { path, at: (await stat(path).catch(() => null))?.mtimeMs ?? 0 };
      }),
    );
    dated.sort((a, b) => a.at - b.at);
    for (const { path } of dated.slice(0, dated.length - this.maxCachedRepos)) {
      if (path !== keep && !this.busy.has(path)) await rm(path, { recursive: true, force: true });
    }
  }
}

/**
 * `git ls-tree -r -z`: every blob, symlink and submodule of a commit. Sizes come from the
 * objects present (`cat-file --batch-check`); blobs the partial clone left out (over the size
 * limit) are reported missing, with no size, and are never fetched.
 */
export async function listTree(repo: string, commit: string, timeoutMs: number): Promise<TreeEntry[]> {
  const out = await git(['-C', repo, 'ls-tree', '-r', '-z', '--full-tree', commit], { timeoutMs });
  const missing = new Set(
    (await git(['-C', repo, 'rev-list', '--objects', '--missing=print', '--no-object-names', commit], { timeoutMs }))
      .toString('latin1')
      .split('\n')
      .filter((line) => line.startsWith('?'))
      .map((line) => line.slice(1)),
  );
  const raw: Omit<TreeEntry, 'size'>[] = [];
  let start = 0;
  for (let end = out.indexOf(0, start); end !== -1; end = out.indexOf(0, start)) {
    const record = out.subarray(start, end);
    start = end + 1;
    const tab = record.indexOf(9);
    if (tab === -1) continue;
    const [mode, type, sha] = record.subarray(0, tab).toString('latin1').trim().split(/\s+/);
    if (!mode || !sha || (type !== 'blob' && type !== 'tree' && type !== 'commit')) continue;
    raw.push({ mode, type, sha, path: Buffer.from(record.subarray(tab + 1)) });
  }
  const present = [...new Set(raw.filter((e) => e.type === 'blob' && !missing.has(e.sha)).map((e) => e.sha))];
  const sizes = new Map<string, number>();
  if (present.length > 0) {
    const checked = await git(['-C', repo, 'cat-file', '--batch-check=%(objectname) %(objectsize)'], { timeoutMs, input: `${present.join('\n')}\n` });
    for (const line of checked.toString('latin1').split('\n')) {
      const [sha, size] = line.split(' ');
      if (sha && size && /^\d+$/.test(size)) sizes.set(sha, Number(size));
    }
  }
  return raw.map((e) => ({ ...e, size: sizes.get(e.sha) ?? null, missing: e.type === 'blob' && missing.has(e.sha) }));
}

/**
 * A `git cat-file --batch` process reading blobs one after another (reads are serialised). Output
 * chunks are queued and copied once into each blob's buffer; the caller asks only for blobs
 * that are present and within its size limit.
 */
export class BlobReader {
  private readonly child;
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private wake: (() => void) | null = null;
  private failure: Error | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(repo: string) {
    // Its own process group, killed whole on close (see system/child.ts).
    this.child = spawn('git', ['-C', repo, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, LC_ALL: 'C' }, detached: true });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      this.wake?.();
    });
    const end = (): void => {
      this.failure ??= new Error('git cat-file ended');
      this.wake?.();
    };
    this.child.on('close', end);
    this.child.on('error', end);
    this.child.stdin.on('error', end);
  }

  private async fill(bytes: number): Promise<void> {
    while (this.buffered < bytes) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }

  /** Removes and returns the next `bytes` bytes (they must be buffered). */
  private take(bytes: number): Buffer {
    const out = Buffer.allocUnsafe(bytes);
    let filled = 0;
    while (filled < bytes) {
      const head = this.chunks[0];
      if (!head) throw new Error('git cat-file: short read');
      const n = Math.min(head.length, bytes - filled);
      head.copy(out, filled, 0, n);
      filled += n;
      if (n === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(n);
    }
    this.buffered -= bytes;
    return out;
  }

  /** Bytes up to the next newline (not included), the newline consumed. */
  private async line(): Promise<string> {
    for (let scanned = 0; ; ) {
      let offset = 0;
      for (const chunk of this.chunks) {
        if (offset + chunk.length > scanned) {
          const at = chunk.indexOf(10, Math.max(0, scanned - offset));
          if (at !== -1) {
            const text = this.take(offset + at).toString('latin1');
            this.take(1);
            return text;
          }
        }
        offset += chunk.length;
      }
      scanned = this.buffered;
      await this.fill(this.buffered + 1);
    }
  }

  read(sha: string): Promise<Buffer> {
    const result = this.queue.then(async () => {
      this.child.stdin.write(`${sha}\n`);
      const header = await this.line();
      const match = /^([0-9a-f]{40}) (\w+) (\d+)$/.exec(header);
      if (!match?.[3]) throw new Error(`git cat-file: ${header}`);
      const size = Number(match[3]);
      await this.fill(size + 1);
      const content = this.take(size);
      this.take(1);
      return content;
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  close(): void {
    this.child.stdin.end();
    killGroup(this.child);
  }
}
