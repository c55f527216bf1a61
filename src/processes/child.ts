import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * Child processes of the service run in a process group of their own (detached), so that a
 * deadline kills them with everything they started: git's helpers (`git-remote-http`,
 * `index-pack`) otherwise outlive a killed git, keep its pipes open and hang the caller.
 */
function spawnGroup(command: string, args: readonly string[], options: Omit<SpawnOptions, 'detached'>): ChildProcess {
  return spawn(command, [...args], { ...options, detached: true });
}

/** Kills a child's whole process group (harmless when it is gone already). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group has no process left.
  }
}

export interface GroupResult {
  readonly code: number | null;
  readonly timedOut: boolean;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** How long output may keep arriving after the child exited before the call settles without it. */
const CLOSE_AFTER_EXIT_MS = 1_000;

/**
 * Runs a command to completion in its own process group. It settles when the child exits (its
 * leftovers are killed then, so its pipes close) or at the deadline (the group is killed and the
 * call returns at once, `timedOut`), never waiting on a pipe a stray descendant keeps open.
 */
export function runGroup(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number; input?: string },
): Promise<GroupResult> {
  return new Promise((resolve, reject) => {
    const child = spawnGroup(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    let settled = false;
    let afterExit: NodeJS.Timeout | undefined;
    const settle = (code: number | null, timedOut: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(afterExit);
      resolve({ code, timedOut, stdout: Buffer.concat(out), stderr: err });
    };
    const timer = setTimeout(() => {
      killGroup(child);
      settle(null, true);
    }, options.timeoutMs);
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup(child);
      reject(error);
    });
    child.on('exit', (code) => {
      killGroup(child);
      afterExit = setTimeout(() => settle(code, false), CLOSE_AFTER_EXIT_MS);
    });
    child.on('close', (code) => settle(code, false));
    // A command that exits without reading its input closes the pipe: its exit status tells.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}
