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
  /** The caller stopped the command (its `onStdout` said so, or its signal aborted): the group was killed. */
  readonly stopped: boolean;
  /** Stdout, unless `onStdout` consumed it as it came. */
  readonly stdout: Buffer;
  readonly stderr: string;
}

export interface GroupOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  readonly input?: string;
  /** Takes stdout chunk by chunk instead of buffering it; `false` stops the command there. */
  readonly onStdout?: (chunk: Buffer) => boolean;
  /** Sees stderr as it comes (e.g. a warning that calls for stopping through `signal`). */
  readonly onStderr?: (text: string) => void;
  readonly signal?: AbortSignal;
}

/** How long output may keep arriving after the child exited before the call settles without it. */
const CLOSE_AFTER_EXIT_MS = 1_000;

/**
 * Runs a command to completion in its own process group. It settles when the child exits (its
 * leftovers are killed then, so its pipes close) or at the deadline (the group is killed and the
 * call returns at once, `timedOut`), never waiting on a pipe a stray descendant keeps open.
 */
export function runGroup(command: string, args: readonly string[], options: GroupOptions): Promise<GroupResult> {
  return new Promise((resolve, reject) => {
    const child = spawnGroup(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    let settled = false;
    let stopped = false;
    let afterExit: NodeJS.Timeout | undefined;
    const settle = (code: number | null, timedOut: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(afterExit);
      options.signal?.removeEventListener('abort', stop);
      resolve({ code, timedOut, stopped, stdout: Buffer.concat(out), stderr: err });
    };
    const timer = setTimeout(() => {
      killGroup(child);
      settle(null, true);
    }, options.timeoutMs);
    function stop(): void {
      stopped = true;
      killGroup(child);
      settle(null, false);
    }
    if (options.signal?.aborted === true) queueMicrotask(stop);
    options.signal?.addEventListener('abort', stop, { once: true });
    const onStdout = options.onStdout;
    child.stdout?.on('data', (c: Buffer) => {
      if (settled) return;
      if (onStdout === undefined) out.push(c);
      else if (!onStdout(c)) stop();
    });
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      // Bounded: a chatty command must not grow this process.
      if (err.length < 64 * 1024) err += text;
      options.onStderr?.(text);
    });
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
