import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The CLI from source, as `node --import tsx src/cli.ts`. */
export function spawnCli(args: readonly string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a failed test can kill the CLI and every child it started.
    detached: true,
  });
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
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** Parsed JSON log lines of a child, with a way to wait for the first line matching a predicate. */
export class LogWatcher {
  readonly lines: Record<string, unknown>[] = [];
  private waiters: { match: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];

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
      this.waiters = this.waiters.filter((w) => {
        if (!w.match(line)) return true;
        w.resolve(line);
        return false;
      });
    });
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
