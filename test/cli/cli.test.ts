import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { freePort, LogWatcher, runCli, spawnCli, stopChild } from '../helpers/cli.js';
import { REDIS_URL } from '../helpers/services.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe('pkgscope CLI start-up errors', () => {
  it('lists every invalid variable and exits 2', async () => {
    const result = await runCli(['api'], { PORT: 'x', LOG_LEVEL: 'chatty' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/invalid configuration:\n {2}PORT: .*\n {2}LOG_LEVEL: /);
  });

  it('names the Postgres URL it tried in one line, without a stack trace', async () => {
    const result = await runCli(['migrate'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/pkgscope' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/cannot reach Postgres at postgres:\/\/postgres@127\.0\.0\.1:1\/pkgscope \(ECONNREFUSED\); start it/);
  });

  it('names the Redis URL it tried in one line', async () => {
    const result = await runCli(['api'], { DATABASE_URL: database.url, REDIS_URL: 'redis://127.0.0.1:1' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\)/);
  });

  it('rejects an unknown command with usage', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command "frobnicate"/);
  });
});

describe('pkgscope tokens', () => {
  it('creates, lists and revokes tokens', async () => {
    const env = { DATABASE_URL: database.url };
    const created = await runCli(['tokens', 'create', '--account', 'cli-user', '--capabilities', 'list,read'], env);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^pks_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toMatch(/shown once/);
    // Says which database holds it: the service must use the same one.
    expect(created.stderr).toContain(new URL(database.url).pathname.slice(1));
    expect(created.stderr).toMatch(/DATABASE_URL/);

    const listed = await runCli(['tokens', 'list', '--json'], env);
    expect(listed.code).toBe(0);
    const tokens = JSON.parse(listed.stdout) as { id: string; account: string; prefix: string; capabilities: string[] }[];
    const mine = tokens.find((t) => t.account === 'cli-user');
    expect(mine).toMatchObject({ prefix: token.slice(0, 10), capabilities: ['list', 'read'] });
    expect(listed.stdout).not.toContain(token);

    const revoked = await runCli(['tokens', 'revoke', mine!.id], env);
    expect(revoked.code).toBe(0);
    const again = await runCli(['tokens', 'revoke', mine!.id], env);
    expect(again.code).toBe(1);

    const bad = await runCli(['tokens', 'create', '--account', 'x', '--capabilities', 'list,fly'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown capabilities: fly/);
    for (const capabilities of ['bogus', 'list,fly']) {
      const result = await runCli(['tokens', 'create', '--account', 'x', '--capabilities', capabilities], env);
      // One line, no stack trace.
      expect(result.stderr.trim().split('\n'), capabilities).toHaveLength(1);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('prints its usage for --help and exits 0, without any configuration', async () => {
    for (const help of ['--help', '-h']) {
      const result = await runCli(['tokens', help], { PORT: 'not-a-port' });
      expect(result.code, help).toBe(0);
      expect(result.stdout).toMatch(/pkgscope tokens create --account NAME/);
      expect(result.stdout).toMatch(/DATABASE_URL/);
    }
    const bare = await runCli(['tokens'], { DATABASE_URL: database.url });
    expect(bare.code).toBe(2);
  });

  it('lists at most a few characters of any token, a short bootstrap token included', async () => {
    const env = { DATABASE_URL: database.url };
    const created = await runCli(['tokens', 'create', '--account', 'few-chars'], env);
    const token = created.stdout.trim();
    // A short operator-chosen token, stored the way AUTH_BOOTSTRAP_TOKEN stores it.
    const { ensureBootstrapToken } = await import('../../src/accounts/tokens.js');
    const { connectDatabase } = await import('../../src/db/client.js');
    const db = connectDatabase(database.url, { max: 1 });
    try {
      await ensureBootstrapToken(db.db, 'tiny-secret');
    } finally {
      await db.close();
    }
    for (const args of [['tokens', 'list'], ['tokens', 'list', '--json']]) {
      const listed = await runCli(args, env);
      expect(listed.code).toBe(0);
      expect(listed.stdout).not.toContain(token.slice(0, 11));
      expect(listed.stdout).toContain(token.slice(0, 10));
      expect(listed.stdout).not.toContain('tiny-s');
      expect(listed.stdout).toContain('tin…');
    }
  });
});

/** Deletes every key under `prefix` (the queues and schedulers a started service left); returns how many remain. */
async function dropRedisPrefix(prefix: string): Promise<number> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const scan = async (): Promise<string[]> => {
      const found: string[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        cursor = next;
        found.push(...keys);
      } while (cursor !== '0');
      return found;
    };
    const keys = await scan();
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    return (await scan()).length;
  } finally {
    redis.disconnect();
  }
}

describe('pkgscope start', () => {
  it('serves, restarts a crashed child, and stops both children on SIGTERM', async () => {
    const port = await freePort();
    const prefix = `pkgscope-test-start-${process.pid}-${port}`;
    const child = spawnCli(['start'], {
      DATABASE_URL: database.url,
      REDIS_URL,
      REDIS_PREFIX: prefix,
      PORT: String(port),
      AUTH_BOOTSTRAP_TOKEN: 'start-test-token',
    });
    const logs = new LogWatcher(child);
    // The one line for a person comes on stderr once the API listens.
    const announced = new Promise<string>((resolve) => {
      let text = '';
      child.stderr?.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        const line = /^pkgscope is running: .*$/m.exec(text);
        if (line) resolve(line[0]);
      });
    });
    try {
      const listening = await logs.waitFor((l) => l['role'] === 'api' && String(l['msg']).startsWith('Server listening'));
      const base = `http://127.0.0.1:${port}`;
      expect(await announced).toBe(`pkgscope is running: console ${base}/console, OpenAPI document ${base}/v1/openapi.json (no token needed), API ${base}/v1`);
      await logs.waitFor((l) => l['role'] === 'worker' && l['msg'] === 'worker started');
      const res = await fetch(`http://127.0.0.1:${port}/v1/list`, { method: 'POST' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="pkgscope"');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-request-id')).toBeTruthy();

      // kill -9 the API child: the supervisor starts another one.
      const apiPid = Number(listening['pid']);
      const mark = logs.lines.length;
      process.kill(apiPid, 'SIGKILL');
      await logs.waitFor((l) => l['msg'] === 'child exited; restarting' && l['child'] === 'api', mark);
      const relisten = await logs.waitFor(
        (l) => l['role'] === 'api' && String(l['msg']).startsWith('Server listening'),
        mark,
      );
      expect(relisten['pid']).not.toBe(apiPid);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

      const workerPid = Number((await logs.waitFor((l) => l['msg'] === 'worker started'))['pid']);
      const newApiPid = Number(relisten['pid']);
      expect(await stopChild(child, 'SIGTERM')).toBe(0);
      expect(logs.lines.some((l) => l['role'] === 'api' && l['msg'] === 'API stopped')).toBe(true);
      expect(logs.lines.some((l) => l['role'] === 'worker' && l['msg'] === 'worker stopped')).toBe(true);
      for (const pid of [workerPid, newApiPid]) expect(() => process.kill(pid, 0)).toThrow();
    } finally {
      await stopChild(child, 'SIGKILL');
      // The service's queues and job schedulers stay in Redis after it stops: a test leaves none behind.
      expect(await dropRedisPrefix(prefix)).toBe(0);
    }
  }, 60_000);
});
