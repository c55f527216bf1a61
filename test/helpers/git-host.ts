import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execFileTracked } from './processes.js';

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.test',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.test',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

/** A file of a fixture commit: text, bytes, a symlink or a submodule (gitlink) entry. */
export type FixtureFile = string | Buffer | { readonly symlink: string } | { readonly submodule: string };

/**
 * A local git host: bare repositories under `<root>/<owner>/<repo>.git`, served through
 * `file://` URLs (GIT_HOSTS maps a host kind to `file://<root>`). Commits are made in a work tree
 * beside each repository and pushed, exactly as a real host receives them.
 */
export class GitHost {
  private constructor(readonly root: string) {}

  static async start(): Promise<GitHost> {
    return new GitHost(await mkdtemp(join(tmpdir(), 'pkgscope-githost-')));
  }

  get baseUrl(): string {
    return `file://${this.root}`;
  }

  async git(cwd: string, args: readonly string[], input?: string): Promise<string> {
    const { stdout } = await execFileTracked('git', args, { cwd, env: { ...process.env, ...IDENTITY }, maxBuffer: 64 * 1024 * 1024, ...(input === undefined ? {} : { input }) });
    return stdout.trim();
  }

  private work(owner: string, repo: string): string {
    return join(this.root, '.work', owner, repo);
  }

  bare(owner: string, repo: string): string {
    return join(this.root, owner, `${repo}.git`);
  }

  /** An empty repository whose default branch is `branch`. */
  async create(owner: string, repo: string, branch = 'main'): Promise<void> {
    const bare = this.bare(owner, repo);
    const work = this.work(owner, repo);
    await mkdir(bare, { recursive: true });
    await this.git(bare, ['init', '--bare', '--quiet', `--initial-branch=${branch}`]);
    // Real hosts serve partial clones and single-commit fetches.
    await this.git(bare, ['config', 'uploadpack.allowFilter', 'true']);
    await this.git(bare, ['config', 'uploadpack.allowAnySHA1InWant', 'true']);
    await mkdir(work, { recursive: true });
    await this.git(work, ['init', '--quiet', `--initial-branch=${branch}`]);
    await this.git(work, ['remote', 'add', 'origin', bare]);
  }

  /**
   * Replaces the work tree with `files` (paths may be raw bytes given as Buffers' latin1 keys via
   * `rawPaths`), commits on `branch` and pushes; returns the commit SHA.
   */
  async commit(owner: string, repo: string, branch: string, files: Record<string, FixtureFile>, rawPaths: readonly Buffer[] = []): Promise<string> {
    const work = this.work(owner, repo);
    const branches = await this.git(work, ['branch', '--list', branch]);
    const hasCommits = (await this.git(work, ['rev-parse', '--verify', '--quiet', 'HEAD']).catch(() => '')) !== '';
    if (hasCommits) await this.git(work, ['checkout', '--quiet', ...(branches === '' ? ['-b'] : []), branch]);
    else await this.git(work, ['checkout', '--quiet', '--orphan', branch]);
    await this.git(work, ['rm', '-r', '--quiet', '--cached', '--ignore-unmatch', '.']);
    await this.git(work, ['clean', '-fdxq']);
    const gitlinks: [string, string][] = [];
    for (const [path, content] of Object.entries(files)) {
      const full = join(work, path);
      await mkdir(dirname(full), { recursive: true });
      if (typeof content === 'string' || Buffer.isBuffer(content)) await writeFile(full, content);
      else if ('symlink' in content) await symlink(content.symlink, full);
      else gitlinks.push([path, content.submodule]);
    }
    for (const raw of rawPaths) await writeFile(Buffer.concat([Buffer.from(`${work}/`), raw]), 'raw path\n');
    await this.git(work, ['add', '-A', '.']);
    for (const [path, sha] of gitlinks) await this.git(work, ['update-index', '--add', '--cacheinfo', `160000,${sha},${path}`]);
    await this.git(work, ['commit', '--quiet', '--allow-empty', '-m', `commit on ${branch}`]);
    await this.git(work, ['push', '--quiet', '--force', 'origin', `${branch}:refs/heads/${branch}`]);
    return this.git(work, ['rev-parse', 'HEAD']);
  }

  /** A tag (annotated unless `lightweight`) at `sha`, pushed. */
  async tag(owner: string, repo: string, name: string, sha: string, lightweight = false): Promise<void> {
    const work = this.work(owner, repo);
    await this.git(work, ['tag', ...(lightweight ? [] : ['-a', '-m', name]), '--force', name, sha]);
    await this.git(work, ['push', '--quiet', '--force', 'origin', `refs/tags/${name}`]);
  }

  /** Points a branch of the hosted repository at `sha` (no work tree involved). */
  async setBranch(owner: string, repo: string, branch: string, sha: string): Promise<void> {
    await this.git(this.bare(owner, repo), ['update-ref', `refs/heads/${branch}`, sha]);
  }

  /**
   * Two commits (empty trees, parentless) whose SHAs share their first four hex digits, written
   * straight into the hosted repository: an abbreviation that names both.
   */
  async collidingCommits(owner: string, repo: string): Promise<[string, string]> {
    const bare = this.bare(owner, repo);
    const emptyTree = await this.git(bare, ['hash-object', '-t', 'tree', '-w', '--stdin'], '');
    const seen = new Map<string, string>();
    for (let i = 0; ; i++) {
      const body = `tree ${emptyTree}\nauthor Fixture <fixture@example.test> 1767225600 +0000\ncommitter Fixture <fixture@example.test> 1767225600 +0000\n\ncollision ${i}\n`;
      const sha = createHash('sha1').update(`commit ${Buffer.byteLength(body)}\0${body}`).digest('hex');
      const other = seen.get(sha.slice(0, 4));
      if (other !== undefined) {
        const first = await this.git(bare, ['hash-object', '-t', 'commit', '-w', '--stdin'], other);
        const second = await this.git(bare, ['hash-object', '-t', 'commit', '-w', '--stdin'], body);
        return [first, second];
      }
      seen.set(sha.slice(0, 4), body);
    }
  }

  async close(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}
