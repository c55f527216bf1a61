import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { BlockedAddress } from '../../src/net/address-policy.js';
import { packageSources, targetOutgoing, type TargetOutgoing } from '../../src/ecosystems/sources.js';
import type { PackageRegistrySource, PackageVersion } from '../../src/ecosystems/shared/package-source.js';
import { DEFAULT_TAR_LIMITS } from '../../src/archives/tar-reader.js';
import { loadNpmOptions } from '../../src/ecosystems/npm/options.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { startRegistryFixture } from '../helpers/package-targets.js';
import { makeTarball, packageTarball } from '../helpers/tarball.js';

/**
 * The outgoing-address policy of package targets: registry documents and redirects may point
 * anywhere, but only configured registries and public addresses are fetched, and credentials
 * never follow a redirect to another origin. Every server here is on 127.0.0.1: the configured
 * ones by their port, `elsewhere` on a port nobody configured.
 */

type Fixture = Awaited<ReturnType<typeof startRegistryFixture>>;
interface Seen {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

let registry: Fixture;
let elsewhere: Fixture;
const atRegistry: Seen[] = [];
const atElsewhere: Seen[] = [];
let sdist: Buffer;
let npmTarball: Buffer;

const release = (url: string) => ({ '1.0.0': [{ packagetype: 'sdist', filename: 'demo-1.0.0.tar.gz', url, yanked: false }] });

beforeAll(async () => {
  sdist = await makeTarball([{ name: 'demo-1.0.0/demo.py', content: 'VALUE = 1\n' }]);
  npmTarball = await packageTarball({ 'index.js': 'module.exports = 1;\n' });
  elsewhere = await startRegistryFixture((path, req, res) => {
    atElsewhere.push({ path, headers: req.headers });
    if (path === '/pypi/moved/json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ info: {}, releases: release(`${elsewhere.url}/demo.tar.gz`) }));
    res.writeHead(200).end(sdist);
  });
  registry = await startRegistryFixture((path, req, res) => {
    atRegistry.push({ path, headers: req.headers });
    const json = (doc: unknown) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
    // Archives on another loopback port, directly or through a redirect; the allowed one is served the same way.
    if (path === '/pypi/pointed/json' || path === '/pypi/pointed-allowed/json') return json({ info: {}, releases: release(`${elsewhere.url}/demo.tar.gz`) });
    if (path === '/pypi/bouncy/json') return json({ info: {}, releases: release(`${registry.url}/bounce/demo.tar.gz`) });
    if (path === '/bounce/demo.tar.gz') return void res.writeHead(302, { location: `${elsewhere.url}/demo.tar.gz` }).end();
    // The metadata itself redirected elsewhere.
    if (path === '/pypi/moved/json') return void res.writeHead(301, { location: `${elsewhere.url}/pypi/moved/json` }).end();
    if (path === '/pypi/fine/json') return json({ info: {}, releases: release(`${registry.url}/files/demo.tar.gz`) });
    if (path === '/files/demo.tar.gz') return void res.writeHead(200).end(sdist);
    // Where npm's `hop` tarball moves (see below).
    if (path === '/files/hop-1.0.0.tgz') return void res.writeHead(200).end(npmTarball);
    res.writeHead(404).end();
  });
});

afterAll(async () => {
  await Promise.all([registry.close(), elsewhere.close()]);
});

describe('package targets under the address policy', () => {
  let h: JobsHarness;
  let token: string;
  const client = inventoryClient(
    () => h.app,
    () => token,
  );

  beforeAll(async () => {
    h = await startJobsHarness({ PACKAGE_REGISTRIES: JSON.stringify({ pypi: registry.url }), RESOLUTION_TIMEOUT_MS: '2000' });
    token = await h.token('egress');
  });
  afterAll(() => h.close());

  it('lists an archive on the configured registry', async () => {
    const workers = await h.startWorkers();
    try {
      const listed = await client.listOk({ target: 'pypi:fine@1.0.0', wait_timeout_ms: 20_000 });
      expect(listed.code_index_state).toBe('current');
    } finally {
      await workers.close();
    }
  });

  it.each(['pointed', 'bouncy'])('refuses an archive another loopback port serves (%s), naming the cause', async (name) => {
    const workers = await h.startWorkers();
    try {
      const before = atElsewhere.length;
      const listed = await client.listOk({ target: `pypi:${name}@1.0.0`, wait_timeout_ms: 20_000 });
      expect(listed).toMatchObject({ code_index_state: 'failed', entries: [] });
      expect(listed.target_resolution?.freshness_reason).toBe('blocked_address');
      expect(atElsewhere.length).toBe(before);
    } finally {
      await workers.close();
    }
  });

  it('refuses registry metadata redirected to another loopback port with a 502 naming the cause', async () => {
    const before = atElsewhere.length;
    const res = await client.list({ target: 'pypi:moved@1.0.0' });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({ code: 'LIST_UNSUPPORTED_API' });
    expect(res.json<{ detail: string }>().detail).toMatch(/non-public address/);
    expect(atElsewhere.length).toBe(before);
  });

  it('fetches private addresses when REGISTRY_ALLOW_PRIVATE_ADDRESSES allows them', async () => {
    const workers = await h.startWorkers({ registryAllowPrivateAddresses: true });
    try {
      const listed = await client.listOk({ target: 'pypi:pointed-allowed@1.0.0', wait_timeout_ms: 20_000, recursive: true });
      expect(listed.code_index_state).toBe('current');
      expect(listed.entries.map((e) => e.path)).toEqual(['demo.py']);
      expect(atElsewhere.some((s) => s.path === '/demo.tar.gz')).toBe(true);
    } finally {
      await workers.close();
    }
  });
});

describe('npm credentials across redirects', () => {
  let npm: Fixture;
  const atNpm: Seen[] = [];
  let outgoing: TargetOutgoing;
  let source: PackageRegistrySource;
  const token = 'npm-s3cret';

  beforeAll(async () => {
    const integrity = `sha512-${createHash('sha512').update(npmTarball).digest('base64')}`;
    npm = await startRegistryFixture((path, req, res) => {
      atNpm.push({ path, headers: req.headers });
      const packument = (name: string, url: string, claimed = integrity) => ({ name, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': { name, version: '1.0.0', dist: { tarball: url, integrity: claimed } } } });
      const json = (doc: unknown) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
      // The tarball moves to another port of the same host: a configured registry, but not this one.
      if (path === '/hop') return json(packument('hop', `${npm.url}/hop/-/hop-1.0.0.tgz`));
      if (path === '/hop/-/hop-1.0.0.tgz') return void res.writeHead(302, { location: `${registry.url}/files/hop-1.0.0.tgz` }).end();
      if (path === '/away') return json(packument('away', `${elsewhere.url}/away-1.0.0.tgz`));
      if (path === '/tampered') return json(packument('tampered', `${npm.url}/tampered.tgz`, `sha512-${createHash('sha512').update('other bytes').digest('base64')}`));
      if (path === '/tampered.tgz') return void res.writeHead(200).end(npmTarball);
      res.writeHead(404).end();
    });
    // npm's configuration as an npmrc gives it: the registry and a token for its host and port.
    const npmOptions = { ...(await loadNpmOptions()), registry: `${npm.url}/`, [`//127.0.0.1:${new URL(npm.url).port}/:_authToken`]: token };
    const registries = loadConfig({ PACKAGE_REGISTRIES: JSON.stringify({ pypi: registry.url }) }).packageRegistries;
    outgoing = targetOutgoing(npmOptions, registries, false);
    source = packageSources(npmOptions, registries, 5_000, outgoing).npm;
  });
  afterAll(async () => {
    await outgoing.close();
    await npm.close();
  });

  const found = async (name: string): Promise<PackageVersion> => {
    const lookup = await source.lookup(name, '1.0.0');
    if (lookup.kind !== 'found') throw new Error(`${name}: ${lookup.kind}`);
    return lookup.version;
  };

  it('sends the credential to its registry and drops it on a redirect that changes only the port', async () => {
    const files: string[] = [];
    await source.read(await found('hop'), DEFAULT_TAR_LIMITS, async (file) => void files.push(file.path));
    expect(files).toEqual(['index.js']);
    expect(atNpm.find((s) => s.path === '/hop')?.headers['authorization']).toBe(`Bearer ${token}`);
    expect(atNpm.find((s) => s.path === '/hop/-/hop-1.0.0.tgz')?.headers['authorization']).toBe(`Bearer ${token}`);
    const moved = atRegistry.find((s) => s.path === '/files/hop-1.0.0.tgz');
    expect(moved).toBeDefined();
    expect(moved?.headers['authorization']).toBeUndefined();
  });

  it('refuses a tarball the packument puts on another loopback port', async () => {
    const version = await found('away');
    const before = atElsewhere.length;
    await expect(source.read(version, DEFAULT_TAR_LIMITS, async () => undefined)).rejects.toBeInstanceOf(BlockedAddress);
    expect(atElsewhere.length).toBe(before);
  });

  it('fails a tarball that does not match its integrity', async () => {
    // The check fails the stream at its end; the tar reader reports a failed source as a corrupt tarball.
    await expect(source.read(await found('tampered'), DEFAULT_TAR_LIMITS, async () => undefined)).rejects.toThrow();
  });
});
