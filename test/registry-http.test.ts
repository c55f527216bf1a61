import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryHttp, RegistryResponseError } from '../src/ecosystems/shared/http.js';
import { RegistryTimeoutError } from '../src/model/registry-unreachable.js';
import { TransientAnalysisError } from '../src/model/types.js';

/** A registry whose every path says how it answers; each request's method, path and headers are kept. */
let server: Server;
let base: string;
const seen: { path: string; headers: IncomingMessage['headers'] }[] = [];
let flaky = 0;

function answer(req: IncomingMessage, res: ServerResponse): void {
  const path = req.url ?? '/';
  seen.push({ path, headers: req.headers });
  const send = (status: number, body = '', type = 'application/json'): void => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
  switch (path) {
    case '/doc':
      return send(200, JSON.stringify({ name: 'doc', accept: req.headers.accept ?? null }));
    case '/chunked': {
      // A body in several writes: every chunk is kept, in order.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"parts":[');
      res.write('"a","b",');
      res.end('"c"]}');
      return;
    }
    case '/gone':
      return send(410, 'gone');
    case '/missing':
      return send(404, '{"error":"not found"}');
    case '/forbidden':
      return send(403, 'no');
    case '/busy':
      return send(429, 'slow down');
    case '/flaky':
      // Fails once, then answers: one retry is enough.
      return flaky++ === 0 ? send(503, 'later') : send(200, '"recovered"');
    case '/large':
      return send(200, JSON.stringify('x'.repeat(4096)));
    case '/moved':
      res.writeHead(302, { location: '/doc' });
      res.end();
      return;
    case '/silent':
      // Headers never come: only the deadline ends the exchange.
      return;
    case '/not-json':
      return send(200, '<html>');
    default:
      return send(500, 'unexpected');
  }
}

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('registry HTTP client', () => {
  it('reads documents whole, asks with the caller’s accept header and credentials, and follows redirects', async () => {
    const http = registryHttp({ retries: 0 });
    try {
      expect(await http.json(`${base}/doc`)).toEqual({ name: 'doc', accept: 'application/json' });
      expect(await http.json(`${base}/doc`, { accept: 'application/vnd.npm.install-v1+json', authorization: 'Bearer t0k' })).toEqual({
        name: 'doc',
        accept: 'application/vnd.npm.install-v1+json',
      });
      expect(seen.at(-1)?.headers).toMatchObject({ authorization: 'Bearer t0k', 'user-agent': 'pkgscope' });
      expect(await http.json(`${base}/chunked`)).toEqual({ parts: ['a', 'b', 'c'] });
      expect(await http.json(`${base}/moved`)).toEqual({ name: 'doc', accept: 'application/json' });
      expect(seen.slice(-2).map((s) => s.path)).toEqual(['/moved', '/doc']);
    } finally {
      await http.close();
    }
  });

  it('answers null for a missing document and names the status of every other refusal', async () => {
    const http = registryHttp({ retries: 0 });
    try {
      expect(await http.text(`${base}/missing`)).toBeNull();
      expect(await http.text(`${base}/gone`)).toBeNull();
      const forbidden = await http.text(`${base}/forbidden`).catch((error: unknown) => error);
      expect(forbidden).toBeInstanceOf(RegistryResponseError);
      expect(forbidden).toMatchObject({ status: 403, message: 'registry answered 403 for /forbidden' });
      await expect(http.text(`${base}/busy`)).rejects.toEqual(new TransientAnalysisError('registry answered 429'));
      await expect(http.json(`${base}/not-json`)).rejects.toMatchObject({ status: 502 });
      // The connection that carried the refusals still serves the next document.
      expect(await http.json(`${base}/doc`)).toMatchObject({ name: 'doc' });
    } finally {
      await http.close();
    }
  });

  it('tries a transient failure again as many times as it is told', async () => {
    flaky = 0;
    const once = registryHttp({ retries: 0 });
    const twice = registryHttp({ retries: 1 });
    try {
      await expect(once.text(`${base}/flaky`)).rejects.toBeInstanceOf(TransientAnalysisError);
      flaky = 0;
      expect(await twice.json(`${base}/flaky`)).toBe('recovered');
      expect(flaky).toBe(2);
    } finally {
      await Promise.all([once.close(), twice.close()]);
    }
  });

  it('refuses a body over its size limit', async () => {
    const http = registryHttp({ retries: 0, maxBytes: 1024 });
    try {
      await expect(http.text(`${base}/large`)).rejects.toMatchObject({ name: 'RegistryResponseError', status: 413 });
      expect(await http.json(`${base}/doc`)).toMatchObject({ name: 'doc' });
    } finally {
      await http.close();
    }
  });

  it('gives up at its deadline, stops at the caller’s signal, and says when a registry cannot be reached', async () => {
    const http = registryHttp({ retries: 0, timeoutMs: 100 });
    try {
      // A transient failure, told apart by its type (and code), never by its message.
      const late = await http.text(`${base}/silent`).catch((error: unknown) => error);
      expect(late).toBeInstanceOf(RegistryTimeoutError);
      expect(late).toBeInstanceOf(TransientAnalysisError);
      expect(late).toMatchObject({ name: 'TransientAnalysisError', code: 'REGISTRY_TIMEOUT', message: 'registry did not answer in time' });
      const controller = new AbortController();
      const waiting = http.text(`${base}/silent`, { signal: controller.signal });
      controller.abort(new Error('the job stopped'));
      await expect(waiting).rejects.toThrow('the job stopped');
      await expect(http.text(`${base}/doc`, { signal: controller.signal })).rejects.toThrow('the job stopped');
    } finally {
      await http.close();
    }
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const nowhere = registryHttp({ retries: 0 });
    try {
      // A connection never made names the host and why: the analysis degrades on it instead of retrying.
      await expect(nowhere.text(`http://127.0.0.1:${port}/doc`)).rejects.toMatchObject({
        name: 'RegistryUnreachableError',
        origin: `http://127.0.0.1:${port}`,
        reason: 'ECONNREFUSED',
      });
      await expect(nowhere.text('not an address')).rejects.toEqual(new TransientAnalysisError('registry request failed'));
    } finally {
      await nowhere.close();
    }
  });
});
