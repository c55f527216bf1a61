import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { BUILT_CLI, ROOT } from './build.js';
import { spawnTracked } from './processes.js';

/**
 * The built CLI, `node dist/src/cli.js` (built by test/global-setup.ts: see build.ts), registered
 * (see processes.ts), in a process group of its own so a failed test can kill it and every child.
 */
export function spawnCli(args: readonly string[], env: Record<string, string> = {}): ChildProcess {
  return spawnTracked(process.execPath, [BUILT_CLI, ...args], childOptions(env), `pkgscope ${args.join(' ')}`);
}

function childOptions(env: Record<string, string>): SpawnOptions {
  return { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true };
}

/** A TypeScript entry point run as `node --import tsx <entry>` in the repository, registered. */
export function spawnTs(entry: string, args: readonly string[], env: Record<string, string> = {}, label = entry): ChildProcess {
  return spawnTracked(process.execPath, ['--import', 'tsx', entry, ...args], childOptions(env), label);
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export async function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawnCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** Parsed JSON log lines of a child, with a way to wait for the first line matching a predicate. */
export class LogWatcher {
  readonly lines: Record<string, unknown>[] = [];
  private waiters: { match: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];
  private readonly listeners: ((l: Record<string, unknown>) => void)[] = [];

  constructor(child: ChildProcess) {
    if (!child.stdout) throw new Error('child has no stdout pipe');
    createInterface({ input: child.stdout }).on('line', (text) => {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return;
      }
      this.lines.push(line);
      for (const listener of this.listeners) listener(line);
      this.waiters = this.waiters.filter((w) => {
        if (!w.match(line)) return true;
        w.resolve(line);
        return false;
      });
    });
  }

  /** Calls `listener` with every line from now on. */
  onLine(listener: (l: Record<string, unknown>) => void): void {
    this.listeners.push(listener);
  }

  /** Resolves with the first line (already seen or future, after `from`) that matches. */
  waitFor(match: (l: Record<string, unknown>) => boolean, from = 0): Promise<Record<string, unknown>> {
    const seen = this.lines.slice(from).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Signals the CLI (or, with SIGKILL, its whole process group) and waits for its pipes to close. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.pid === undefined) return child.exitCode;
  if (signal === 'SIGKILL') {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // the group is already gone
    }
  }
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const closed = once(child, 'close');
  child.kill(signal);
  const [code] = (await closed) as [number | null];
  return code;
}
