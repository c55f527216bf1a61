import type { ChildProcess } from 'node:child_process';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import { freePort, LogWatcher, spawnCli, stopChild } from './cli.js';
import { SMALL_NPM } from './fixtures.js';

export const JOBS = '/v1/experimental/lockfile-jobs';

export interface ServiceEnv {
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly redisPrefix: string;
  readonly registryUrl: string;
  readonly extra?: Record<string, string>;
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly logs: LogWatcher;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Lines the process wrote to stderr. */
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function env(service: ServiceEnv, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: service.databaseUrl,
    REDIS_URL: service.redisUrl,
    REDIS_PREFIX: service.redisPrefix,
    // npm's own configuration, read from the environment like any npmrc setting.
    npm_config_registry: `${service.registryUrl}/`,
    JOB_LOCK_MS: '1500',
    RECONCILE_INTERVAL_MS: '1000',
    RECONCILE_GRACE_MS: '2000',
    PROGRESS_INTERVAL_MS: '0',
    ...service.extra,
    ...extra,
  };
}

/** `pkgscope api` or `pkgscope worker` from source, started and ready. */
export async function startService(kind: 'api' | 'worker', service: ServiceEnv, extra: Record<string, string> = {}): Promise<ServiceProcess> {
  const child = spawnCli([kind], env(service, extra));
  const logs = new LogWatcher(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const ready = kind === 'api' ? (l: Record<string, unknown>) => String(l['msg']).startsWith('Server listening') : (l: Record<string, unknown>) => l['msg'] === 'worker started';
  const exited = new Promise<never>((_resolve, reject) =>
    child.once('exit', (code) => reject(new Error(`${kind} exited with ${code} before it was ready:\n${stderr}`))),
  );
  await Promise.race([logs.waitFor(ready), exited]);
  exited.catch(() => undefined);
  return {
    child,
    logs,
    alive: () => child.exitCode === null && child.signalCode === null,
    stderr: () => stderr,
    stop: (signal = 'SIGKILL') => stopChild(child, signal),
  };
}

/** An API process on a free port with a bootstrap token, and a small client for it. */
export async function startApi(service: ServiceEnv, extra: Record<string, string> = {}): Promise<ServiceProcess & ApiClient> {
  const port = await freePort();
  const token = `outage-token-${port}`;
  const api = await startService('api', service, { PORT: String(port), AUTH_BOOTSTRAP_TOKEN: token, ...extra });
  return { ...api, ...apiClient(`http://127.0.0.1:${port}`, token) };
}

export interface ApiClient {
  readonly base: string;
  readonly token: string;
  request(path: string, init?: RequestInit): Promise<Response>;
  submit(): Promise<JobSnapshot>;
  snapshot(id: string): Promise<JobSnapshot>;
}

export function apiClient(base: string, token: string): ApiClient {
  const request = (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(`${base}${path}`, { ...init, headers });
  };
  return {
    base,
    token,
    request,
    submit: async () => {
      const res = await request(JOBS, { method: 'POST', body: JSON.stringify({ format: 'text', files: SMALL_NPM() }) });
      if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as JobSnapshot;
    },
    snapshot: async (id) => {
      const res = await request(`${JOBS}/${id}`);
      if (res.status !== 200) throw new Error(`status answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as JobSnapshot;
    },
  };
}
