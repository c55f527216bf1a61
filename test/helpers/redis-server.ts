import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { freePort } from './cli.js';
import { spawnTracked } from './processes.js';

export interface PrivateRedis {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A redis-server of the test's own, for tests that flush or stop Redis: the shared one serves
 * other test files running in parallel. Starting one on the port of a stopped one stands for a
 * Redis restart that lost its data.
 */
export async function startPrivateRedis(port?: number): Promise<PrivateRedis> {
  port ??= await freePort();
  const child: ChildProcess = spawnTracked(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'notice'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
    `redis-server :${port}`,
  );
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (/Ready to accept connections/.test(line)) resolve();
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
