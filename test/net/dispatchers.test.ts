import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockedIn } from '../../src/net/address-policy.js';
import { createOutgoing, type Outgoing } from '../../src/net/dispatchers.js';

/**
 * The outgoing dispatchers against three local servers: `registry` and `storage` are configured
 * (trusted) origins, `elsewhere` is another loopback port nobody configured.
 */

interface Origin {
  readonly url: string;
  readonly port: number;
  readonly seen: { path: string; headers: IncomingHttpHeaders }[];
  readonly server: Server;
}

async function origin(route: (path: string) => { status: number; location?: string; body?: string }): Promise<Origin> {
  const seen: Origin['seen'] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    seen.push({ path, headers: req.headers });
    const answer = route(path);
    res.writeHead(answer.status, answer.location === undefined ? {} : { location: answer.location }).end(answer.body ?? '');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, seen, server };
}

let registry: Origin;
let storage: Origin;
let elsewhere: Origin;
let outgoing: Outgoing;
let permissive: Outgoing;

beforeAll(async () => {
  const ok = { status: 200, body: 'archive' };
  storage = await origin(() => ok);
  elsewhere = await origin(() => ok);
  registry = await origin((path) => {
    if (path === '/to-storage') return { status: 302, location: `${storage.url}/archive` };
    if (path === '/to-elsewhere') return { status: 302, location: `${elsewhere.url}/archive` };
    if (path === '/to-localhost') return { status: 301, location: `http://localhost:${elsewhere.port}/archive` };
    if (path === '/to-mapped') return { status: 307, location: `http://[::ffff:127.0.0.1]:${elsewhere.port}/archive` };
    if (path === '/to-compatible') return { status: 308, location: `http://[::7f00:1]:${elsewhere.port}/archive` };
    if (path === '/same-origin') return { status: 302, location: '/archive' };
    return ok;
  });
  outgoing = createOutgoing({ trusted: [`${registry.url}/base/`, storage.url], allowPrivate: false });
  permissive = createOutgoing({ trusted: [], allowPrivate: true });
});

afterAll(async () => {
  await Promise.all([outgoing.close(), permissive.close()]);
  for (const o of [registry, storage, elsewhere]) {
    o.server.closeAllConnections();
    o.server.close();
  }
});

const get = async (url: string, via: Outgoing = outgoing, headers: Record<string, string> = {}) => {
  const res = await request(url, { dispatcher: via.following, headers });
  return { status: res.statusCode, body: await res.body.text() };
};

const refusal = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return blockedIn(error);
  }
  return null;
};

describe('outgoing dispatchers', () => {
  it('reach configured origins (any path under them) and follow redirects between them', async () => {
    expect(await get(`${registry.url}/plain`)).toEqual({ status: 200, body: 'archive' });
    expect(await get(`${registry.url}/to-storage`)).toEqual({ status: 200, body: 'archive' });
    expect(storage.seen.map((s) => s.path)).toContain('/archive');
  });

  it.each(['/to-elsewhere', '/to-localhost', '/to-mapped', '/to-compatible'])('refuse a redirect hop %s to an address nobody configured', async (path) => {
    const before = elsewhere.seen.length;
    const blocked = await refusal(get(`${registry.url}${path}`));
    expect(blocked?.code).toBe('EBLOCKED');
    expect(elsewhere.seen.length).toBe(before);
  });

  it('refuse a first request to another port of a configured host', async () => {
    const blocked = await refusal(get(`${elsewhere.url}/archive`));
    expect(blocked?.host).toBe(`127.0.0.1:${elsewhere.port}`);
    expect(elsewhere.seen).toEqual([]);
  });

  it('drop credentials and cookies on a redirect to another port, keep them on the same origin', async () => {
    const secret = { authorization: 'Bearer s3cret', cookie: 'session=s3cret' };
    expect((await get(`${registry.url}/same-origin`, outgoing, secret)).status).toBe(200);
    expect(registry.seen.filter((s) => s.path === '/archive').at(-1)?.headers).toMatchObject(secret);
    storage.seen.length = 0;
    expect((await get(`${registry.url}/to-storage`, outgoing, secret)).status).toBe(200);
    expect(registry.seen.filter((s) => s.path === '/to-storage').at(-1)?.headers).toMatchObject(secret);
    const hop = storage.seen.find((s) => s.path === '/archive');
    expect(hop).toBeDefined();
    expect(hop?.headers['authorization']).toBeUndefined();
    expect(hop?.headers['cookie']).toBeUndefined();
  });

  it('reach private addresses when they are allowed', async () => {
    expect(await get(`${registry.url}/to-elsewhere`, permissive)).toEqual({ status: 200, body: 'archive' });
    expect(await get(`http://localhost:${elsewhere.port}/archive`, permissive)).toEqual({ status: 200, body: 'archive' });
  });

  it('check addresses for clients that connect by themselves', async () => {
    await expect(outgoing.check(`${registry.url}/anything`)).resolves.toBeUndefined();
    await expect(outgoing.check(`${elsewhere.url}/archive`)).rejects.toMatchObject({ code: 'EBLOCKED' });
    await expect(outgoing.check(`http://localhost:${elsewhere.port}/`)).rejects.toMatchObject({ code: 'EBLOCKED' });
    await expect(outgoing.check('file:///etc/passwd')).rejects.toMatchObject({ code: 'EBLOCKED' });
    await expect(permissive.check(`${elsewhere.url}/archive`)).resolves.toBeUndefined();
    expect(outgoing.trusts(`${storage.url}/x`)).toBe(true);
    expect(outgoing.trusts(`${elsewhere.url}/x`)).toBe(false);
  });
});
