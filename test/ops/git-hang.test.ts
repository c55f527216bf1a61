import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGroup } from '../../src/system/child.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';

/** A "git host" that accepts connections and never answers a byte. */
async function silentHost(): Promise<{ server: Server; url: string; open: Set<Socket>; accepted: () => number }> {
  const open = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    open.add(socket);
    socket.on('error', () => undefined);
    // Read (and drop) what git sends, so the peer's close is seen.
    socket.resume();
    socket.on('close', () => open.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, url: `http://127.0.0.1:${address.port}`, open, accepted: () => accepted };
}

const DEADLINE_MS = 1_000;

describe('a git host that accepts and never answers', () => {
  let h: JobsHarness;
  let host: Awaited<ReturnType<typeof silentHost>>;
  let token = '';
  const { list } = inventoryClient(
    () => h.app,
    () => token,
  );

  beforeAll(async () => {
    host = await silentHost();
    h = await startJobsHarness({ GIT_HOSTS: JSON.stringify({ github: host.url }), GIT_TIMEOUT_MS: String(DEADLINE_MS), GIT_REFS_TTL_MS: '0' });
    token = await h.token('git-hang');
  });
  afterAll(async () => {
    await h.close();
    for (const socket of host.open) socket.destroy();
    host.server.close();
    await once(host.server, 'close');
  });

  it('answers 504 TIMEOUT at the deadline, not when the silent host gives up, and leaves no git process holding a connection', async () => {
    const started = performance.now();
    const res = await list({ target: 'github:acme/silent' });
    const elapsed = performance.now() - started;
    expect(res.statusCode, res.body).toBe(504);
    expect(res.json()).toMatchObject({ code: 'TIMEOUT' });
    // The host never answers: only the deadline ends the request (the bound leaves room for a loaded machine).
    expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS);
    expect(elapsed).toBeLessThan(DEADLINE_MS + 10_000);
    // git really reached the host, and its HTTP helper was killed with it: the connection it
    // held is closed (an orphaned git-remote-http would keep it open).
    expect(host.accepted()).toBeGreaterThan(0);
    while (host.open.size > 0) await once([...host.open][0]!, 'close');
    expect(host.open.size).toBe(0);
  });
});

describe('child process groups', () => {
  it('kill the descendants of a command at its deadline and settle without waiting for their pipes', async () => {
    // The shell's background child inherits stdout and outlives the shell: only a group kill ends it.
    const started = performance.now();
    const result = await runGroup('sh', ['-c', 'sleep 30 & echo started; wait'], { timeoutMs: 500 });
    expect(result).toMatchObject({ code: null, timedOut: true });
    expect(result.stdout.toString()).toBe('started\n');
    // Not the 30 s its descendant holds the pipe for (a generous bound: this machine may be loaded).
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('settle when the command exits even if a descendant keeps its stdout open', async () => {
    const result = await runGroup('sh', ['-c', 'sleep 30 & echo done'], { timeoutMs: 10_000 });
    expect(result).toMatchObject({ code: 0, timedOut: false });
    expect(result.stdout.toString()).toBe('done\n');
  });
});
