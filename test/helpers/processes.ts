import { execFile, spawn, type ChildProcess, type ExecFileOptions, type SpawnOptions } from 'node:child_process';

/**
 * Every process a test starts (services, workers, CLIs, private Postgres and Redis servers, git
 * and other tools) is registered here, so that none outlives its test file whatever the outcome:
 * test/leak-guard.ts kills what is left after a file's own hooks ran (a test that timed out never
 * reached its `finally`), and this test process kills them when it exits, is signalled, or loses
 * its runner (the IPC channel to vitest closes). Kills are SIGKILLs, of the whole process group
 * for processes started in a group of their own (`detached`), so their children go too.
 */

interface Tracked {
  readonly pid: number;
  /** Kill `-pid` (the process group it leads) rather than `pid` alone. */
  readonly group: boolean;
  readonly label: string;
}

/** One registry per process, whatever module instance registers (isolated files re-import helpers). */
const holder = globalThis as { [key: symbol]: unknown };
const REGISTRY = Symbol.for('pkgscope.test.processes');
const tracked = (holder[REGISTRY] ??= new Map<number, Tracked>()) as Map<number, Tracked>;

function killTracked(entry: Tracked): boolean {
  try {
    process.kill(entry.group ? -entry.pid : entry.pid, 'SIGKILL');
    return true;
  } catch {
    // gone already (ESRCH)
    return false;
  }
}

/**
 * Registers a process by pid: `group` when it leads a process group of its own (started with
 * `detached: true`, or a daemon that called setsid, like the postmaster).
 */
export function trackPid(pid: number, label: string, options: { group?: boolean } = {}): void {
  tracked.set(pid, { pid, group: options.group ?? false, label });
}

/** Registers a spawned child; it stays registered (for its group) until killed or untracked. */
export function track<C extends ChildProcess>(child: C, label: string, options: { group?: boolean } = {}): C {
  const { pid } = child;
  if (pid === undefined) return child; // never started: 'error' tells the caller
  const entry: Tracked = { pid, group: options.group ?? false, label };
  tracked.set(pid, entry);
  child.once('exit', () => {
    // Forgotten once nothing of it is left (a group leader's children may live on): its pid, and
    // so its group id, may be reused by someone else's process later.
    if (!present(entry)) tracked.delete(pid);
  });
  return child;
}

/** Marks a process as stopped on purpose (its group was killed or it exited with nothing behind). */
export function untrack(pid: number | undefined): void {
  if (pid !== undefined) tracked.delete(pid);
}

/** `spawn`, registered. `detached: true` children are killed as a process group. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions, label = command): ChildProcess {
  const child = spawn(command, args, options);
  return track(child, label, { group: options.detached === true });
}

export interface ExecResult {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `execFile` as a promise (rejecting on a non-zero exit, like `promisify(execFile)`), registered
 * while it runs; `input` is written to its stdin.
 */
export function execFileTracked(file: string, args: readonly string[], options: ExecFileOptions & { input?: string } = {}): Promise<ExecResult> {
  const { input, ...rest } = options;
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { ...rest, encoding: 'utf8' }, (error, stdout, stderr) => {
      // As promisify(execFile) rejects: an Error with the exit code, signal and output.
      if (error) reject(Object.assign(new Error(error.message, { cause: error }), { code: error.code, signal: error.signal, stdout, stderr }));
      else resolve({ stdout, stderr });
    });
    track(child, `${file} ${args.slice(0, 2).join(' ')}`.trim());
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Whether a registered process (or, for a group, any process of its group) is still there. */
function present(entry: Tracked): boolean {
  try {
    process.kill(entry.group ? -entry.pid : entry.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The registered processes still running (what a test file left behind). */
export function leftRunning(): string[] {
  return [...tracked.values()].filter(present).map((e) => `${e.label} (pid ${e.pid}${e.group ? ', its process group' : ''})`);
}

/**
 * The registered processes still running after up to `graceMs`: a process a test killed a moment
 * ago (a service's children, SIGKILLed with their group) is gone only once the kernel and its
 * parent are done with it, which takes a turn of this event loop or of init's.
 */
export async function stillRunning(graceMs: number): Promise<string[]> {
  const deadline = Date.now() + graceMs;
  let running = leftRunning();
  while (running.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    running = leftRunning();
  }
  return running;
}

/** SIGKILLs every registered process (and group) still there; returns what it killed. Synchronous, so it runs in 'exit' handlers. */
export function killAll(): string[] {
  const killed: string[] = [];
  for (const entry of tracked.values()) {
    if (killTracked(entry)) killed.push(`${entry.label} (pid ${entry.pid})`);
  }
  tracked.clear();
  return killed;
}

/**
 * This test process's exit, signals and runner loss kill what is registered. A signal is then
 * raised again when nothing else handles it, so the process still ends the way it was told to.
 */
function installExitHandlers(): void {
  const marker = Symbol.for('pkgscope.test.processes.handlers');
  if (holder[marker] === true) return;
  holder[marker] = true;
  process.on('exit', () => killAll());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      killAll();
      if (process.listenerCount(signal) === 1) {
        process.off(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
  // vitest's fork loses its IPC channel when the runner is gone (killed, or exited first).
  if (process.connected) process.on('disconnect', () => killAll());
}

installExitHandlers();
