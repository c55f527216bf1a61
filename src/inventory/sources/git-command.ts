import { runGroup, type GroupOptions, type GroupResult } from '../../system/child.js';

/** A git command that failed: its stderr (LC_ALL=C) and exit code (null when its deadline killed it). */
export class GitError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

/**
 * Runs git without prompts or credential helpers; stdout as bytes. At the deadline git and its
 * helpers (`git-remote-http`, `index-pack`) are killed as one process group and the call rejects
 * at once. `http.lowSpeedTime` makes the HTTP helper give up on a silent host by itself too,
 * should this process die before its timer fires.
 */
export async function git(args: readonly string[], options: Omit<GroupOptions, 'env'>): Promise<Buffer> {
  const result = await runGit(args, options);
  if (result.code === 0) return result.stdout;
  throw new GitError(result.timedOut ? `git ${args[0] ?? ''} timed out` : `git ${args[0] ?? ''} failed`, result.stderr, result.code);
}

/** `git` with this module's settings; the caller reads the result (a stopped command is no failure to it). */
export function runGit(args: readonly string[], options: Omit<GroupOptions, 'env'>): Promise<GroupResult> {
  const stallSeconds = String(Math.max(1, Math.ceil(options.timeoutMs / 1000)));
  return runGroup('git', ['-c', 'http.lowSpeedLimit=1', '-c', `http.lowSpeedTime=${stallSeconds}`, ...args], {
    ...options,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true', GCM_INTERACTIVE: 'never', LC_ALL: 'C' },
  });
}
