import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './cli.js';
import { execFileTracked as run, trackPid, untrack } from './processes.js';

export interface PrivatePostgres {
  /** The URL of `database` on this cluster (user postgres, trust authentication). */
  url(database: string): string;
  /** `pg_ctl restart -m fast`: every session is terminated (57P01), then the server is back. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and deletes its files. */
  destroy(): Promise<void>;
}

/** Where initdb and pg_ctl live: PG_BIN, else the newest /usr/lib/postgresql/<v>/bin. */
function binDir(): string | null {
  const fromEnv = process.env['PG_BIN'];
  if (fromEnv !== undefined && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(root, versions[0], 'bin');
}

/**
 * A Postgres cluster of the caller's own, for tests and benchmarks that restart or stop the
 * server (the shared one serves everyone else). initdb refuses to run as root, so as root the
 * cluster runs as the `postgres` system user. Null (skip) when initdb is not installed.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres | null> {
  const bin = binDir();
  if (bin === null) return null;
  const asRoot = userInfo().uid === 0;
  const dir = await mkdtemp(join(tmpdir(), 'pkgscope-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const pg = async (tool: string, args: readonly string[]): Promise<void> => {
    const command = join(bin, tool);
    if (asRoot) await run('runuser', ['-u', 'postgres', '--', command, ...args], { cwd: dir });
    else await run(command, [...args], { cwd: dir });
  };
  try {
    if (asRoot) await chown(dir, ...(await postgresIds()));
    await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  } catch {
    await rm(dir, { recursive: true, force: true });
    return null;
  }
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=200`;
  const ctl = (action: string, extra: readonly string[] = []): Promise<void> =>
    pg('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '30', ...extra, action]);
  // The postmaster leads a session of its own (pg_ctl detaches it), its backends in its group:
  // registered, so a test that never reaches destroy() leaves no server behind.
  let postmaster: number | undefined;
  const started = async (): Promise<void> => {
    untrack(postmaster);
    postmaster = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    trackPid(postmaster, `postgres :${port}`, { group: true });
  };
  const stopped = (): void => {
    untrack(postmaster);
    postmaster = undefined;
  };
  try {
    await ctl('start', ['-o', options]);
    await started();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  let running = true;
  return {
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    restart: async () => {
      await ctl('restart', ['-m', 'fast', '-o', options]);
      await started();
    },
    stop: async () => {
      await ctl('stop', ['-m', 'fast']);
      stopped();
      running = false;
    },
    start: async () => {
      await ctl('start', ['-o', options]);
      await started();
      running = true;
    },
    destroy: async () => {
      if (running) await ctl('stop', ['-m', 'immediate']).catch(() => undefined);
      stopped();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function postgresIds(): Promise<[number, number]> {
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return [uid, gid];
}
