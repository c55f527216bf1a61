import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { BUILT_CLI, ROOT } from './build.js';
import { LogWatcher } from './cli.js';
import { spawnTracked, trackPid } from './processes.js';

/**
 * The service as `npm start` runs it: `node dist/src/cli.js start` (migrations, then an API and a
 * worker child), built, in a process tree of its own, with an environment holding only what a
 * deployment sets. Tests of the shipped artefact use it; tests of behaviour use the sources.
 */

export interface ShippedService {
  readonly base: string;
  readonly token: string;
  readonly logs: LogWatcher;
  /** Lines the process tree wrote to stderr. */
  stderr(): string;
  /** `fetch` of a path of the API with the bootstrap token. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** SIGTERM to `pkgscope start`; its exit code once it and its children are gone. */
  stop(): Promise<number | null>;
  /** SIGKILL to every process group of the tree that is still there; resolves once `pkgscope start` is gone. */
  kill(): Promise<void>;
}

/** Variables of this process a shipped service keeps: where programs and the user's npm configuration are. */
const INHERITED = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'USER'];

/**
 * Starts `node dist/src/cli.js start` with `env` (on top of the few inherited variables above) and
 * resolves once its API listens and its worker runs (killing the tree when that takes longer than
 * `readyMs`, so a hung start-up leaves nothing behind). The Node binary is this process's.
 */
export async function startShippedService(env: Readonly<Record<string, string>>, token: string, port: number, readyMs = 120_000): Promise<ShippedService> {
  const inherited = Object.fromEntries(INHERITED.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])));
  const child: ChildProcess = spawnTracked(
    process.execPath,
    [BUILT_CLI, 'start'],
    {
      cwd: ROOT,
      env: { ...inherited, ...env, PORT: String(port), AUTH_BOOTSTRAP_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own; the supervisor starts each child in a group of its own too.
      detached: true,
    },
    'pkgscope start (built)',
  );
  const logs = new LogWatcher(child);
  // Each child's group is registered too: a test that never stops the service leaves none behind.
  logs.onLine((l) => {
    if (l['msg'] === 'child started' && typeof l['childPid'] === 'number') trackPid(l['childPid'], `pkgscope start's ${typeof l['child'] === 'string' ? l['child'] : 'child'}`, { group: true });
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  const kill = async (): Promise<void> => {
    // The supervisor's group and each child's (every child it started logs its pid).
    const children = logs.lines.flatMap((l) => (l['msg'] === 'child started' && typeof l['childPid'] === 'number' ? [l['childPid']] : []));
    for (const pid of [...(child.pid === undefined ? [] : [child.pid]), ...children]) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // that group is gone already
      }
    }
    await closed;
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    const exited = closed.then(([code, signal]) => {
      throw new Error(`pkgscope start exited (${code ?? signal}) before it was ready:\n${stderr}`);
    });
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`pkgscope start was not ready after ${readyMs} ms:\n${stderr}`)), readyMs);
    });
    await Promise.race([
      Promise.all([
        logs.waitFor((l) => l['role'] === 'api' && String(l['msg']).startsWith('Server listening')),
        logs.waitFor((l) => l['role'] === 'worker' && l['msg'] === 'worker started'),
      ]),
      exited,
      late,
    ]);
  } catch (error) {
    await kill();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    token,
    logs,
    stderr: () => stderr,
    request: (path, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(`${base}${path}`, { ...init, headers });
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const [code] = await closed;
      return code;
    },
    kill,
  };
}
