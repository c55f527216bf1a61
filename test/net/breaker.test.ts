import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { HostBreakers } from '../../src/net/breaker.js';
import { coalescedLookup } from '../../src/net/lookup.js';
import { registryHttp } from '../../src/ecosystems/shared/http.js';
import { RegistryUnreachableError } from '../../src/model/registry-unreachable.js';
import { freePort } from '../helpers/cli.js';

/**
 * The registry client's per-host circuit breaker, against a port that refuses connections: a real
 * undici agent whose dispatches are counted (every dispatch to the refusing port is an attempt to
 * connect), and which can hold a request as if it waited for a socket.
 */

interface CountingAgent {
  readonly dispatcher: Dispatcher;
  /** Paths dispatched, in order. */
  readonly dispatched: string[];
  close(): Promise<void>;
}

function countingAgent(): CountingAgent {
  const agent = new Agent({ connections: 4 });
  const dispatched: string[] = [];
  const dispatcher = agent.compose((dispatch) => (opts, handler) => {
    const path = opts.path;
    dispatched.push(path);
    // Held: never sent (a request queued behind busy sockets); only the breaker can end it.
    if (path.startsWith('/held')) return true;
    return dispatch(opts, handler);
  });
  return { dispatcher, dispatched, close: () => agent.destroy() };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server on `port` answering 200; `/slow` waits until `release` is called. */
async function serverOn(port: number): Promise<{ server: Server; seen: string[]; arrived: Promise<void>; release: () => void }> {
  const seen: string[] = [];
  let release = (): void => undefined;
  let arrive = (): void => undefined;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.url ?? '');
    if (req.url === '/slow') {
      release = () => res.end('"slow"');
      arrive();
      return;
    }
    res.end('"ok"');
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { server, seen, arrived, release: () => release() };
}

describe('the registry client’s circuit breaker', () => {
  it('fails a host’s requests at once after three refused connections, those in flight included, and no others', async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const agent = countingAgent();
    cleanups.push(() => agent.close());
    const breakers = new HostBreakers({ threshold: 3, coolDownMs: 30_000, now: () => 0 });
    const http = registryHttp({ retries: 0, breakers, dispatcher: agent.dispatcher });

    const inFlight = http.text(`${origin}/held`);
    inFlight.catch(() => undefined);
    for (let i = 0; i < 3; i++) {
      await expect(http.text(`${origin}/a${i}`)).rejects.toMatchObject({ name: 'RegistryUnreachableError', origin, reason: 'ECONNREFUSED', withoutRequest: false });
    }
    // The third failure opened the breaker: the request waiting for a socket fails with it.
    await expect(inFlight).rejects.toMatchObject({ name: 'RegistryUnreachableError', origin, reason: 'ECONNREFUSED', withoutRequest: true });
    expect(breakers.open()).toEqual([{ origin, reason: 'ECONNREFUSED' }]);

    const attempts = agent.dispatched.length;
    const later = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => http.json(`${origin}/b${i}`)));
    expect(later.every((r) => r.status === 'rejected' && r.reason instanceof RegistryUnreachableError && r.reason.withoutRequest)).toBe(true);
    // Not one of them tried to connect.
    expect(agent.dispatched.length).toBe(attempts);

    // Another host of the same client is not concerned.
    const other = await serverOn(await freePort());
    const address = other.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    expect(await http.json(`http://127.0.0.1:${address.port}/doc`)).toBe('ok');
  });

  it('lets one request try after the cool-down: a refusal opens the breaker again, an answer closes it', async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const agent = countingAgent();
    cleanups.push(() => agent.close());
    let clock = 1_000;
    const breakers = new HostBreakers({ threshold: 3, coolDownMs: 30_000, now: () => clock });
    const http = registryHttp({ retries: 0, breakers, dispatcher: agent.dispatcher });
    for (let i = 0; i < 3; i++) await expect(http.text(`${origin}/a${i}`)).rejects.toMatchObject({ withoutRequest: false });

    // Within the cool-down: nothing goes out.
    clock += 29_999;
    await expect(http.text(`${origin}/early`)).rejects.toMatchObject({ withoutRequest: true });
    expect(agent.dispatched).not.toContain('/early');

    // Over: one trial connects, is refused, and the breaker is open again for a whole cool-down.
    clock += 1;
    await expect(http.text(`${origin}/trial`)).rejects.toMatchObject({ reason: 'ECONNREFUSED', withoutRequest: false });
    await expect(http.text(`${origin}/after-trial`)).rejects.toMatchObject({ withoutRequest: true });
    expect(agent.dispatched.filter((p) => p === '/trial' || p === '/after-trial')).toEqual(['/trial']);

    // The registry is back; after the cool-down the trial is answered and the others, which waited for it, follow.
    const registry = await serverOn(port);
    clock += 30_000;
    const trial = http.json(`${origin}/slow`);
    const waiting = http.json(`${origin}/doc`);
    await registry.arrived;
    expect(agent.dispatched).not.toContain('/doc');
    registry.release();
    expect(await trial).toBe('slow');
    expect(await waiting).toBe('ok');
    expect(registry.seen).toEqual(['/slow', '/doc']);
    expect(breakers.open()).toEqual([]);
    expect(await http.json(`${origin}/again`)).toBe('ok');
  });

  it('tries a refused connection once more while the breaker is closed, and an open breaker’s failure never', async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const agent = countingAgent();
    cleanups.push(() => agent.close());
    const breakers = new HostBreakers({ threshold: 3, coolDownMs: 30_000, now: () => 0 });
    const http = registryHttp({ retries: 1, breakers, dispatcher: agent.dispatcher });
    // Two attempts (the second one retried), then one attempt that opens the breaker and is not retried.
    await expect(http.text(`${origin}/first`)).rejects.toMatchObject({ reason: 'ECONNREFUSED' });
    await expect(http.text(`${origin}/second`)).rejects.toMatchObject({ reason: 'ECONNREFUSED' });
    expect(agent.dispatched).toEqual(['/first', '/first', '/second']);
    await expect(http.text(`${origin}/third`)).rejects.toMatchObject({ withoutRequest: true });
    expect(agent.dispatched).toEqual(['/first', '/first', '/second']);
  });
});

describe('the registry client’s DNS lookup', () => {
  it('asks the resolver once for the connections opening to a name at the same time, and keeps nothing', () => {
    const asked: string[] = [];
    const answers = new Map<string, Parameters<LookupFunction>[2]>();
    const resolver: LookupFunction = (hostname, _options, callback) => {
      asked.push(hostname);
      answers.set(hostname, callback);
    };
    const lookup = coalescedLookup(resolver);
    const heard: unknown[] = [];
    for (let i = 0; i < 5; i++) lookup('registry.test', { all: true }, (error) => heard.push(error?.code));
    lookup('other.test', { all: true }, () => undefined);
    expect(asked).toEqual(['registry.test', 'other.test']);

    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND registry.test'), { code: 'ENOTFOUND' });
    answers.get('registry.test')?.(notFound, []);
    expect(heard).toEqual(['ENOTFOUND', 'ENOTFOUND', 'ENOTFOUND', 'ENOTFOUND', 'ENOTFOUND']);
    // Answered: the next connection asks again.
    lookup('registry.test', { all: true }, () => undefined);
    expect(asked).toEqual(['registry.test', 'other.test', 'registry.test']);
  });
});
