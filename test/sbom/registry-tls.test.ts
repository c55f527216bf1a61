import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryHttp } from '../../src/ecosystems/shared/http.js';
import { npmMetadataClient } from '../../src/ecosystems/npm/registry.js';

// A registry behind a certificate of a private authority, as a company mirror often is: npm's
// `ca` setting names that authority, and both fetch paths must trust it (and only with it).
let dir: string;
let ca: string;
let server: Server;
let base: string;
const paths: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pkgscope-tls-'));
  const file = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { stdio: 'ignore' });
  };
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=pkgscope test authority', '-keyout', file('ca.key'), '-out', file('ca.pem'));
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', file('server.key'), '-out', file('server.csr'));
  await writeFile(file('ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-days', '2', '-extfile', file('ext.cnf'), '-out', file('server.pem'));
  ca = await readFile(file('ca.pem'), 'utf8');
  server = createServer({ key: await readFile(file('server.key')), cert: await readFile(file('server.pem')) }, (request, response) => {
    paths.push(request.url ?? '');
    if (request.url === '/alpha/1.0.0') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ name: 'alpha', version: '1.0.0', license: 'MIT', description: 'behind a private authority' }));
      return;
    }
    response.statusCode = 404;
    response.end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('an npm registry over HTTPS with a private certificate authority', () => {
  it('is reached by the plain client with the CAs of npm\'s `ca` setting', async () => {
    const given: unknown[] = [];
    const http = registryHttp({ retries: 0, ca });
    try {
      const client = npmMetadataClient({ registry: base, ca, retry: { retries: 0 } }, 5_000, (cas) => {
        given.push(cas);
        return http;
      });
      expect(await client.fetch('alpha', '1.0.0')).toMatchObject({ license: 'MIT', description: 'behind a private authority' });
      expect(given).toEqual([ca]);
    } finally {
      await http.close();
    }
  });

  it('is reached by npm\'s own fetch with the same setting, where npm\'s fetch must go', async () => {
    // A bound local address is one of the settings only npm's fetch honours.
    const client = npmMetadataClient({ registry: base, ca, localAddress: '127.0.0.1', retry: { retries: 0 } }, 5_000, () => {
      throw new Error('the plain client was chosen');
    });
    const before = paths.length;
    expect(await client.fetch('alpha', '1.0.0')).toMatchObject({ license: 'MIT' });
    expect(paths.slice(before)).toContain('/alpha/1.0.0');
  });

  it('is refused without that authority, on either path', async () => {
    const http = registryHttp({ retries: 0 });
    try {
      const plain = npmMetadataClient({ registry: base, retry: { retries: 0 } }, 5_000, () => http);
      await expect(plain.fetch('alpha', '1.0.0')).rejects.toThrow();
      const npm = npmMetadataClient({ registry: base, localAddress: '127.0.0.1', retry: { retries: 0 } }, 5_000);
      await expect(npm.fetch('alpha', '1.0.0')).rejects.toThrow();
    } finally {
      await http.close();
    }
  });
});
