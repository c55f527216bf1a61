import { StringDecoder } from 'node:string_decoder';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SharedLookups } from './git-bounds.js';
import { git, GitError, runGit } from './git-command.js';
import { remoteFailure } from './git-failure.js';

/**
 * A remote's refs as `git ls-remote --symref` prints them, which commit a requested ref names,
 * and the lookups that ask the remote (its ref listing, a named ref, its history).
 */

export interface RemoteRefs {
  /** Branch HEAD points at (the default branch), when the remote says. */
  readonly head: string | null;
  readonly branches: ReadonlyMap<string, string>;
  /** Tags, peeled to the commit an annotated tag names. */
  readonly tags: ReadonlyMap<string, string>;
  /** The host advertised more refs than are read: a ref missing here may still exist. */
  readonly truncated?: boolean;
}

export type RefResolution =
  | { readonly kind: 'found'; readonly commit: string; readonly refName: string; readonly refKind: 'branch' | 'tag' | 'commit' }
  | { readonly kind: 'ambiguous'; readonly detail: string }
  | { readonly kind: 'not_found' }
  /** An abbreviated SHA matching no branch or tag tip: only the history can tell. */
  | { readonly kind: 'abbreviation' };

const FULL_SHA = /^[0-9a-f]{40}$/i;
const SHORT_SHA = /^[0-9a-f]{4,39}$/i;

export function parseLsRemote(text: string): RemoteRefs {
  const parser = new LsRemoteParser(Number.POSITIVE_INFINITY);
  parser.push(Buffer.from(text, 'utf8'));
  return parser.end();
}

/** Longest line `ls-remote` prints for a ref kept: a SHA, a tab and a ref name git would accept. */
const MAX_LINE_BYTES = 4096;

/**
 * `git ls-remote --symref` output read as it arrives, chunk by chunk (each costs the event loop
 * one pass over its lines, never the whole listing at once), up to `maxRefs` lines; past them the
 * listing is marked truncated and `push` answers false so the caller stops the command.
 */
export class LsRemoteParser {
  private head: string | null = null;
  private readonly branches = new Map<string, string>();
  private readonly tags = new Map<string, string>();
  private partial = '';
  // A ref name's UTF-8 character may be split between two chunks of git's output.
  private readonly decoder = new StringDecoder('utf8');
  private lines = 0;
  private truncated = false;

  constructor(private readonly maxRefs: number) {}

  push(chunk: Buffer): boolean {
    if (this.truncated) return false;
    const text = this.partial + this.decoder.write(chunk);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      this.line(text.slice(start, end));
      start = end + 1;
      if (++this.lines > this.maxRefs) {
        this.truncated = true;
        return false;
      }
    }
    this.partial = text.slice(start);
    // A line longer than any ref git accepts is no listing this parser keeps reading.
    if (this.partial.length > MAX_LINE_BYTES) {
      this.truncated = true;
      return false;
    }
    return true;
  }

  end(): RemoteRefs {
    if (!this.truncated && this.partial !== '') this.line(this.partial);
    this.partial = '';
    return { head: this.head, branches: this.branches, tags: this.tags, truncated: this.truncated };
  }

  private line(line: string): void {
    const symref = /^ref: refs\/heads\/(.+)\tHEAD$/.exec(line);
    if (symref?.[1]) {
      this.head = symref[1];
      return;
    }
    const [sha, ref] = line.split('\t');
    if (!sha || !ref || !FULL_SHA.test(sha)) return;
    // HEAD's own line follows its symref: the default branch's commit, should its line be past the refs read.
    if (ref === 'HEAD' && this.head !== null && !this.branches.has(this.head)) this.branches.set(this.head, sha);
    else if (ref.startsWith('refs/heads/')) this.branches.set(ref.slice(11), sha);
    else if (ref.startsWith('refs/tags/')) {
      const name = ref.slice(10);
      // `v1^{}` is the commit an annotated tag points at; it wins over the tag object.
      if (name.endsWith('^{}')) this.tags.set(name.slice(0, -3), sha);
      else if (!this.tags.has(name)) this.tags.set(name, sha);
    }
  }
}

/** Which commit a ref names: branch, tag (both must agree), full or abbreviated SHA. */
export function resolveRef(refs: RemoteRefs, ref: string | null): RefResolution {
  if (ref === null) {
    const head = refs.head ?? (refs.branches.has('main') ? 'main' : refs.branches.has('master') ? 'master' : null);
    const commit = head === null ? undefined : refs.branches.get(head);
    return head !== null && commit ? { kind: 'found', commit, refName: head, refKind: 'branch' } : { kind: 'not_found' };
  }
  const branch = refs.branches.get(ref);
  const tag = refs.tags.get(ref);
  if (branch && tag && branch !== tag) {
    return { kind: 'ambiguous', detail: `"${ref}" is both a branch (${branch.slice(0, 12)}) and a tag (${tag.slice(0, 12)}); ask for a commit` };
  }
  if (branch) return { kind: 'found', commit: branch, refName: ref, refKind: 'branch' };
  if (tag) return { kind: 'found', commit: tag, refName: ref, refKind: 'tag' };
  if (FULL_SHA.test(ref)) return { kind: 'found', commit: ref.toLowerCase(), refName: ref.toLowerCase(), refKind: 'commit' };
  if (SHORT_SHA.test(ref)) {
    const prefix = ref.toLowerCase();
    const tips = new Set([...refs.branches.values(), ...refs.tags.values()].filter((sha) => sha.startsWith(prefix)));
    if (tips.size > 1) return { kind: 'ambiguous', detail: `"${ref}" abbreviates ${tips.size} different commits` };
    const [only] = tips;
    if (only) return { kind: 'found', commit: only, refName: only, refKind: 'commit' };
    return { kind: 'abbreviation' };
  }
  return { kind: 'not_found' };
}

export interface RemoteLookupOptions {
  /** Deadline of a history fetch; ref listings and single-commit fetches take at most 30 s of it. */
  readonly timeoutMs: number;
  readonly refsTtlMs: number;
  /** Refs of a remote read at most; past them its listing is truncated (and `ls-remote` stopped). */
  readonly maxRefs: number;
}

/** What remotes say about their refs and history, asked through the git CLI and kept briefly. */
export class RemoteLookups {
  private readonly refCache = new Map<string, { at: number; value: Promise<RemoteRefs | null> }>();
  /** History lookups (abbreviations, unadvertised commits): one in flight per repository, results kept briefly. */
  private readonly lookups: SharedLookups;
  private readonly timeoutMs: number;
  private readonly refsTtlMs: number;
  private readonly maxRefs: number;

  constructor(options: RemoteLookupOptions) {
    this.timeoutMs = options.timeoutMs;
    this.refsTtlMs = options.refsTtlMs;
    this.maxRefs = options.maxRefs;
    this.lookups = new SharedLookups(this.refsTtlMs);
  }

  /**
   * The remote's refs (cached briefly); null when the host says the repository does not exist or
   * cannot be read. A host that fails or cannot be reached rejects with a GitError instead.
   */
  refs(url: string): Promise<RemoteRefs | null> {
    const cached = this.refCache.get(url);
    if (cached && Date.now() - cached.at < this.refsTtlMs) return cached.value;
    const value = this.listRefs(url, []);
    this.refCache.set(url, { at: Date.now(), value });
    value.catch(() => this.refCache.delete(url));
    if (this.refCache.size > 1000) this.refCache.clear();
    return value;
  }

  /**
   * The refs named `name` (branch, tag and its peeled commit; HEAD for null), asked of the remote
   * alone: what a truncated listing cannot tell. Shared and kept briefly like other lookups.
   */
  namedRefs(url: string, name: string | null): Promise<RemoteRefs | null> {
    const patterns = name === null ? ['HEAD'] : [`refs/heads/${name}`, `refs/tags/${name}`, `refs/tags/${name}^{}`];
    return this.lookups.run(url, `refs:${name ?? ''}`, () => this.listRefs(url, patterns));
  }

  /**
   * `git ls-remote --symref`, read as it comes and stopped past `maxRefs` lines (a host
   * advertising a million refs otherwise grew this process by hundreds of MB).
   */
  private async listRefs(url: string, patterns: readonly string[]): Promise<RemoteRefs | null> {
    const parser = new LsRemoteParser(this.maxRefs);
    const result = await runGit(['ls-remote', '--symref', '--', url, ...patterns], {
      timeoutMs: Math.min(this.timeoutMs, 30_000),
      onStdout: (chunk) => parser.push(chunk),
    });
    if (result.code === 0 || result.stopped) return parser.end();
    const error = new GitError(result.timedOut ? 'git ls-remote timed out' : 'git ls-remote failed', result.stderr, result.code);
    if (remoteFailure(error) === 'missing') return null;
    throw error;
  }

  /**
   * Whether the remote has a commit no branch or tag points at: the commit object alone is
   * fetched (depth 1, no trees) into a scratch repository. Throws a GitError when the host fails.
   */
  hasCommit(url: string, sha: string): Promise<boolean> {
    return this.lookups.run(url, `commit:${sha}`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'pkgscope-git-'));
      try {
        await git(['init', '--bare', '--quiet', dir], { timeoutMs: 10_000 });
        await git(['-C', dir, 'fetch', '--quiet', '--depth=1', '--no-tags', '--filter=tree:0', '--', url, sha], { timeoutMs: Math.min(this.timeoutMs, 30_000) });
        return true;
      } catch (error) {
        if (error instanceof GitError && remoteFailure(error) === 'missing') return false;
        throw error;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  /**
   * Resolves an abbreviated SHA against the remote's history (commits only, no trees or blobs).
   * The history is fetched once per repository at a time, and the answer (found or not) kept
   * briefly: the same unknown abbreviation asked again does not fetch it again.
   */
  resolveAbbreviation(url: string, prefix: string): Promise<RefResolution> {
    const lower = prefix.toLowerCase();
    return this.lookups.run(url, `abbrev:${lower}`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'pkgscope-git-'));
      try {
        await git(['init', '--bare', '--quiet', dir], { timeoutMs: 10_000 });
        await git(['-C', dir, 'fetch', '--quiet', '--no-tags', '--filter=tree:0', '--', url, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'], {
          timeoutMs: this.timeoutMs,
        });
        // Only the objects the prefix names, never the whole history's list.
        const named = await runGit(['-C', dir, 'rev-parse', `--disambiguate=${lower}`], { timeoutMs: this.timeoutMs });
        const candidates = named.stdout.toString('latin1').split('\n').filter((sha) => /^[0-9a-f]{40}$/.test(sha));
        const typed = candidates.length === 0 ? Buffer.alloc(0) : await git(['-C', dir, 'cat-file', '--batch-check=%(objecttype) %(objectname)'], { timeoutMs: this.timeoutMs, input: `${candidates.join('\n')}\n` });
        const matches = typed
          .toString('latin1')
          .split('\n')
          .filter((line) => line.startsWith('commit '))
          .map((line) => line.slice(7));
        if (matches.length > 1) return { kind: 'ambiguous', detail: `"${prefix}" abbreviates ${matches.length} commits` };
        const [only] = matches;
        return only ? { kind: 'found', commit: only, refName: only, refKind: 'commit' } : { kind: 'not_found' };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
}
