import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskMetadataCache } from '../../src/ecosystems/shared/disk-cache.js';
import { registryHttp } from '../../src/ecosystems/shared/http.js';
import { fetchOptionsOf } from '../../src/ecosystems/npm/options.js';
import { npmMetadataClient } from '../../src/ecosystems/npm/registry.js';
import { PgMetadataCache, storedCoordinate } from '../../src/db/metadata-cache.js';
import { registryAnalysis } from '../../src/sbom/registry-analysis.js';
import { analyze } from '../../src/sbom/analyze.js';
import { RegistryEnricher } from '../../src/sbom/enrich.js';
import { METADATA_FORMAT } from '../../src/model/metadata.js';
import type { ProgressCounts } from '../../src/model/types.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startFixtureRegistry, type FixtureRegistry } from '../helpers/registry.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

type Json = Record<string, unknown>;
const lockfileOf = (deps: Record<string, { version: string; license?: string }>) => {
  const packages: Json = { '': { name: 'app', version: '1.0.0', dependencies: Object.fromEntries(Object.entries(deps).map(([n, d]) => [n, d.version])) } };
  for (const [name, d] of Object.entries(deps)) packages[`node_modules/${name}`] = { version: d.version, ...(d.license ? { license: d.license } : {}) };
  return { path: 'package-lock.json', content: JSON.stringify({ name: 'app', lockfileVersion: 3, packages }) };
};

describe('enrichment', () => {
  let registry: FixtureRegistry;
  beforeAll(async () => {
    registry = await startFixtureRegistry({
      packages: {
        alpha: {
          versions: {
            '1.0.0': {
              license: 'Apache 2.0',
              description: 'First letter',
              homepage: 'https://alpha.example.test',
              repository: { type: 'git', url: 'git+https://git.example.test/alpha.git' },
              author: { name: 'Ada', email: 'ada@example.test' },
              deprecated: 'use beta',
            },
          },
        },
        '@scope/beta': { versions: { '2.0.0': { licenses: [{ type: 'MIT' }, { type: 'ISC' }] } } },
        gamma: { versions: { '3.0.0': { license: 'BSD-2-Clause' } } },
      },
      statusFor: (name) => (name === 'gamma' ? 500 : null),
    });
  });
  afterAll(() => registry.close());

  it('fills license, description, links, author and deprecation from the registry, reporting counts', async () => {
    const cache = new PgMetadataCache(database.db);
    const { registry: enricher } = await registryAnalysis({ cache, resolutionTimeoutMs: 5000, npmOptions: await registry.npmOptions() });
    const progress: ProgressCounts[] = [];
    const files = [lockfileOf({ alpha: { version: '1.0.0' }, '@scope/beta': { version: '2.0.0' }, gamma: { version: '3.0.0', license: 'MIT' } })];
    const result = await analyze(files, 'cyclonedx', { registry: enricher, onProgress: (p) => progress.push(p.counts) });
    expect(result.counts).toMatchObject({ coordinates_total: 3, coordinates_done: 3, fetched: 2, cached: 0, fetch_failed: 1 });
    const bom = JSON.parse(result.document) as Json;
    const components = bom['components'] as Json[];
    const alpha = components.find((c) => c['name'] === 'alpha')!;
    expect(alpha).toMatchObject({
      description: 'First letter',
      authors: [{ name: 'Ada', email: 'ada@example.test' }],
      licenses: [{ expression: 'Apache-2.0' }],
      externalReferences: expect.arrayContaining([
        { type: 'website', url: 'https://alpha.example.test' },
        { type: 'vcs', url: 'git+https://git.example.test/alpha.git' },
      ]) as unknown,
    });
    expect(alpha['properties']).toContainEqual({ name: 'service:deprecated', value: 'use beta' });
    expect(components.find((c) => c['name'] === 'beta')!['licenses']).toEqual([{ expression: 'MIT OR ISC' }]);
    // gamma could not be fetched: it keeps the lockfile's license and is named in the notice.
    expect(components.find((c) => c['name'] === 'gamma')!['licenses']).toEqual([{ expression: 'MIT' }]);
    const notice = (bom['properties'] as { name: string; value: string }[]).find((p) => p.name === 'service:notice')!.value;
    expect(notice).toMatch(/could not be fetched for gamma@3\.0\.0/);
    expect(progress.some((c) => c.coordinates_done === 1)).toBe(true);

    // A second analysis finds the fetched coordinates in the Postgres cache.
    const again = await analyze(files, 'text', { registry: enricher });
    expect(again.counts).toMatchObject({ cached: 2, fetched: 0, fetch_failed: 1 });

    // SPDX: the package's author made it (originator) and, on npm, supplies it.
    const spdx = JSON.parse((await analyze(files, 'spdx', { registry: enricher })).document) as { packages: Json[] };
    expect(spdx.packages.find((p) => p['name'] === 'alpha')).toMatchObject({ originator: 'Person: Ada (ada@example.test)', supplier: 'Person: Ada (ada@example.test)' });
  });

  it('shares in-flight fetches and respects the concurrency limit', async () => {
    const slow = await startFixtureRegistry({ latencyMs: 40, fallback: () => ({ license: 'MIT' }) });
    try {
      const enricher = new RegistryEnricher(new Map([['npm', npmMetadataClient(await slow.npmOptions())]]), null, 4);
      const coords = Array.from({ length: 24 }, (_, i) => ({ ecosystem: 'npm', name: `pkg${i}`, version: '1.0.0' }));
      const [a, b] = await Promise.all([enricher.enrich(coords, () => undefined, undefined), enricher.enrich(coords, () => undefined, undefined)]);
      expect(a.metadata.size).toBe(24);
      expect(b.metadata.size).toBe(24);
      expect(slow.requests).toHaveLength(24);
      expect(slow.maxConcurrent()).toBeLessThanOrEqual(4);
      expect(slow.maxConcurrent()).toBeGreaterThan(1);
    } finally {
      await slow.close();
    }
  });

  it('reads the packument where the registry has no version endpoint', async () => {
    const old = await startFixtureRegistry({ noVersionEndpoint: true, packages: { delta: { versions: { '4.0.0': { license: 'ISC' } } } } });
    try {
      const client = npmMetadataClient(await old.npmOptions());
      expect(await client.fetch('delta', '4.0.0')).toMatchObject({ license: 'ISC' });
      expect(await client.fetch('delta', '9.9.9')).toBeNull();
      expect(old.requests).toEqual(['/delta/4.0.0', '/delta', '/delta/9.9.9', '/delta']);
    } finally {
      await old.close();
    }
  });

  for (const via of ['npm-registry-fetch', 'the plain HTTP client'] as const) {
    it(`asks a scope registry with its credentials, and the default registry without them (${via})`, async () => {
      const corp = await startFixtureRegistry({ packages: { '@corp/kit': { versions: { '2.0.0': { license: 'Apache-2.0' } } } } });
      const http = via === 'the plain HTTP client' ? registryHttp({ retries: 0 }) : null;
      try {
        const corpHost = new URL(corp.url).host;
        // As a user's .npmrc would say it, trimmed as the analysis trims it.
        const options = fetchOptionsOf({ ...(await registry.npmOptions()), '@corp:registry': `${corp.url}/`, [`//${corpHost}/:_authToken`]: 'corp-secret' });
        expect(Object.keys(options).length).toBeLessThan(40);
        const client = npmMetadataClient(options, 5_000, http === null ? null : () => http);
        expect(await client.fetch('@corp/kit', '2.0.0')).toMatchObject({ license: 'Apache-2.0' });
        expect(await client.fetch('@corp/kit', '9.9.9')).toBeNull();
        expect(corp.requests).toEqual(['/@corp/kit/2.0.0', '/@corp/kit/9.9.9', '/@corp/kit']);
        expect(corp.authorizations).toEqual(['Bearer corp-secret', 'Bearer corp-secret', 'Bearer corp-secret']);
        const before = registry.requests.length;
        expect(await client.fetch('alpha', '1.0.0')).toMatchObject({ license: 'Apache 2.0' });
        expect(registry.requests.slice(before)).toEqual(['/alpha/1.0.0']);
        expect(registry.authorizations.slice(before)).toEqual([undefined]);
      } finally {
        await http?.close();
        await corp.close();
      }
    });
  }

  it('looks a credential configured below a registry’s address up per package, as npm does', async () => {
    const corp = await startFixtureRegistry({
      packages: { '@corp/kit': { versions: { '2.0.0': { license: 'MIT' } } }, '@corp/vault': { versions: { '1.0.0': { license: 'ISC' } } } },
    });
    const http = registryHttp({ retries: 0 });
    try {
      const corpHost = new URL(corp.url).host;
      const options = fetchOptionsOf({
        ...(await registry.npmOptions()),
        '@corp:registry': `${corp.url}/`,
        [`//${corpHost}/:_authToken`]: 'corp-secret',
        [`//${corpHost}/@corp%2Fvault:_authToken`]: 'vault-secret',
      });
      const client = npmMetadataClient(options, 5_000, () => http);
      expect(await client.fetch('@corp/kit', '2.0.0')).toMatchObject({ license: 'MIT' });
      expect(await client.fetch('@corp/vault', '1.0.0')).toMatchObject({ license: 'ISC' });
      expect(await client.fetch('@corp/kit', '2.0.0')).toMatchObject({ license: 'MIT' });
      expect(corp.authorizations).toEqual(['Bearer corp-secret', 'Bearer vault-secret', 'Bearer corp-secret']);
    } finally {
      await http.close();
      await corp.close();
    }
  });

  it('goes through npm-registry-fetch when the npm configuration names a proxy', async () => {
    const http = registryHttp({ retries: 0 });
    try {
      // The plain client would reach the registry directly; npm's fetch goes to the (dead) proxy and fails.
      const client = npmMetadataClient({ ...(await registry.npmOptions()), proxy: 'http://127.0.0.1:9/', retry: { retries: 0 } }, 2_000, () => http);
      const before = registry.requests.length;
      await expect(client.fetch('alpha', '1.0.0')).rejects.toThrow();
      expect(registry.requests.length).toBe(before);
    } finally {
      await http.close();
    }
  });

  it('keeps metadata on disk for the CLI in one log, expiring old entries', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pkgscope-cache-'));
    try {
      let now = 1_000_000;
      const file = join(dir, 'nested', 'metadata.ndjson');
      const cache = new DiskMetadataCache(file, 60_000, () => now);
      const meta = { license: 'MIT', description: null, homepage: null, repository: null, author: null, deprecated: null };
      await cache.setMany(new Map([['a@1.0.0', meta]]));
      expect(await cache.getMany(['a@1.0.0', 'b@1.0.0'])).toEqual(new Map([['a@1.0.0', meta]]));
      // Another run reads what this one wrote, from the one file.
      expect(await new DiskMetadataCache(file, 60_000, () => now).getMany(['a@1.0.0'])).toEqual(new Map([['a@1.0.0', meta]]));
      expect((await readdir(join(dir, 'nested'))).sort()).toEqual(['metadata.ndjson']);
      now += 61_000;
      expect((await cache.getMany(['a@1.0.0'])).size).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('passes over a line cut short by a crash, and the last line of a key wins', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pkgscope-cache-'));
    try {
      const file = join(dir, 'metadata.ndjson');
      const meta = (license: string) => ({ license, description: null, homepage: null, repository: null, author: null, deprecated: null });
      const line = (key: string, license: string) => JSON.stringify({ format: METADATA_FORMAT, key, fetchedAt: Date.now(), metadata: meta(license) });
      await writeFile(file, `${line('a@1', 'MIT')}
not json
${line('a@1', 'ISC')}
${line('b@1', 'MIT').slice(0, 30)}`);
      const cache = new DiskMetadataCache(file);
      expect(await cache.getMany(['a@1', 'b@1'])).toEqual(new Map([['a@1', meta('ISC')]]));
      await cache.setMany(new Map([['c@1', meta('0BSD')]]));
      // The torn line stays torn; the appended one starts on a line of its own.
      expect(await new DiskMetadataCache(file).getMany(['a@1', 'b@1', 'c@1'])).toEqual(
        new Map([
          ['a@1', meta('ISC')],
          ['c@1', meta('0BSD')],
        ]),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rewrites the log with its live entries once superseded ones outnumber them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pkgscope-cache-'));
    try {
      const file = join(dir, 'metadata.ndjson');
      const meta = (n: number) => ({ license: `L${n}`, description: null, homepage: null, repository: null, author: null, deprecated: null });
      const cache = new DiskMetadataCache(file);
      // 10 keys written 150 times: 1,500 lines for 10 live entries.
      for (let round = 0; round < 150; round++) {
        await cache.setMany(new Map(Array.from({ length: 10 }, (_, k) => [`k${k}@1`, meta(round)] as const)));
      }
      const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '');
      expect(lines.length).toBeLessThan(1_100);
      expect(await new DiskMetadataCache(file).getMany(['k0@1', 'k9@1'])).toEqual(
        new Map([
          ['k0@1', meta(149)],
          ['k9@1', meta(149)],
        ]),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the Postgres metadata cache', () => {
  const meta = (license: string) => ({ license, description: null, homepage: null, repository: null, author: null, deprecated: null });

  it('answers what it read or wrote from memory, without Postgres, until the entry would go stale', async () => {
    const writer = new PgMetadataCache(database.db);
    await writer.setMany(new Map([['kept@1.0.0', meta('MIT')], ['old@1.0.0', meta('ISC')]]));
    await database.db.execute(sql`UPDATE package_metadata SET fetched_at = now() - interval '8 days' WHERE coordinate = ${storedCoordinate('old@1.0.0')}`);
    const reader = new PgMetadataCache(database.db);
    const first = await reader.getMany(['kept@1.0.0', 'old@1.0.0', 'never@1.0.0']);
    expect([...first.keys()]).toEqual(['kept@1.0.0']);
    await database.db.execute(sql`DELETE FROM package_metadata WHERE coordinate IN (${storedCoordinate('kept@1.0.0')}, ${storedCoordinate('old@1.0.0')})`);
    // Postgres has nothing now: memory answers for the entry it read, and for those it wrote.
    expect((await reader.getMany(['kept@1.0.0']).then((m) => m.get('kept@1.0.0')))?.license).toBe('MIT');
    expect((await writer.getMany(['old@1.0.0'])).get('old@1.0.0')?.license).toBe('ISC');
    // Without memory every read goes to Postgres.
    expect((await new PgMetadataCache(database.db, { memoryEntries: 0 }).getMany(['kept@1.0.0'])).size).toBe(0);
  });

  it('lets an enrichment be reused until the first of its entries would go stale, and not when one failed', async () => {
    const cache = new PgMetadataCache(database.db, { maxAgeMs: 60_000 });
    await cache.setMany(new Map([['aged@1.0.0', meta('MIT')]]));
    await database.db.execute(sql`UPDATE package_metadata SET fetched_at = now() - interval '50 seconds' WHERE coordinate = ${storedCoordinate('aged@1.0.0')}`);
    const client = { fetch: (name: string) => Promise.resolve(name === 'absent' ? null : meta('ISC')) };
    const enricher = new RegistryEnricher(new Map([['npm', client]]), new PgMetadataCache(database.db, { maxAgeMs: 60_000 }));
    const at = Date.now();
    const both = await enricher.enrich([{ ecosystem: 'npm', name: 'aged', version: '1.0.0' }, { ecosystem: 'npm', name: 'new', version: '1.0.0' }], () => undefined, undefined);
    // The entry read from Postgres has about 10 s left, the fetched one a full minute: the first decides.
    expect(both.reusableUntil).toBeGreaterThan(at + 8_000);
    expect(both.reusableUntil).toBeLessThan(at + 11_000);
    const fresh = await enricher.enrich([{ ecosystem: 'npm', name: 'new', version: '1.0.0' }], () => undefined, undefined);
    expect(fresh.reusableUntil).toBeGreaterThan(at + 55_000);
    const withFailure = await enricher.enrich([{ ecosystem: 'npm', name: 'new', version: '1.0.0' }, { ecosystem: 'npm', name: 'absent', version: '1.0.0' }], () => undefined, undefined);
    expect(withFailure.failed).toHaveLength(1);
    expect(withFailure.reusableUntil).toBeUndefined();
    // A cache that cannot tell (the CLI's disk log) makes nothing reusable.
    expect((await new RegistryEnricher(new Map([['npm', client]]), null).enrich([{ ecosystem: 'npm', name: 'new', version: '1.0.0' }], () => undefined, undefined)).reusableUntil).toBeUndefined();
  });

  it('forgets an entry from memory when its Postgres age runs out', async () => {
    const cache = new PgMetadataCache(database.db, { maxAgeMs: 60_000 });
    await cache.setMany(new Map([['brief@1.0.0', meta('MIT')]]));
    await database.db.execute(sql`UPDATE package_metadata SET fetched_at = now() - interval '59 seconds' WHERE coordinate = ${storedCoordinate('brief@1.0.0')}`);
    const reader = new PgMetadataCache(database.db, { maxAgeMs: 60_000 });
    expect((await reader.getMany(['brief@1.0.0'])).size).toBe(1);
    await database.db.execute(sql`DELETE FROM package_metadata WHERE coordinate = ${storedCoordinate('brief@1.0.0')}`);
    // Read with about a second of age left: it leaves memory with it.
    await expect.poll(async () => (await reader.getMany(['brief@1.0.0'])).size, { timeout: 3_000, interval: 100 }).toBe(0);
  });
});

describe('resolution of manifests without a lockfile', () => {
  let registry: FixtureRegistry;
  beforeAll(async () => {
    registry = await startFixtureRegistry({
      packages: {
        left: { versions: { '1.0.0': { license: 'MIT' }, '1.2.0': { license: 'MIT', dependencies: { right: '^2.0.0' } } } },
        right: { versions: { '2.0.0': { license: 'ISC' }, '2.1.0': { license: 'ISC' } } },
        'dev-tool': { versions: { '5.0.0': {} } },
      },
    });
  });
  afterAll(() => registry.close());

  const resolverFor = async (timeoutMs = 20_000) =>
    (await registryAnalysis({ cache: null, resolutionTimeoutMs: timeoutMs, npmOptions: await registry.npmOptions() })).resolver;

  it('resolves an ideal tree with Arborist and marks the document as manifest resolution', async () => {
    const manifest = { name: 'fresh', version: '0.1.0', dependencies: { left: '^1.0.0' }, devDependencies: { 'dev-tool': '5' } };
    const result = await analyze([{ path: 'app/package.json', content: JSON.stringify(manifest) }], 'cyclonedx', {
      resolver: await resolverFor(),
    });
    const bom = JSON.parse(result.document) as Json;
    const components = bom['components'] as { name: string; version: string; scope?: string; properties?: { name: string; value: string }[] }[];
    expect(components.map((c) => `${c.name}@${c.version}`).sort()).toEqual(['dev-tool@5.0.0', 'left@1.2.0', 'right@2.1.0']);
    expect((bom['metadata'] as { component?: { name: string; version: string } }).component).toMatchObject({ name: 'fresh', version: '0.1.0' });
    expect(components.find((c) => c.name === 'dev-tool')?.scope).toBe('excluded');
    const props = Object.fromEntries((bom['properties'] as { name: string; value: string }[]).map((p) => [p.name, p.value]));
    expect(props['service:completeness']).toBe('resolved_manifest_inventory');
    expect(props['service:resolution_basis']).toBe('manifest_resolution');
    expect(JSON.parse(props['service:resolutions'] ?? '')).toEqual([{ manifest: 'app/package.json', outcome: 'resolved', detail: null }]);
    expect(JSON.parse(props['service:lockfiles'] ?? '')).toEqual([]);
    expect(result.counts.manifests_done).toBe(1);
  });

  it('records an impossible range as resolution_failed and keeps the declarations unresolved', async () => {
    const files = [
      { path: 'ok/package.json', content: JSON.stringify({ name: 'ok', dependencies: { right: '2.0.0' } }) },
      { path: 'bad/package.json', content: JSON.stringify({ name: 'bad', dependencies: { left: '^99.0.0' } }) },
    ];
    const result = await analyze(files, 'cyclonedx', { resolver: await resolverFor() });
    const props = Object.fromEntries(((JSON.parse(result.document) as Json)['properties'] as { name: string; value: string }[]).map((p) => [p.name, p.value]));
    expect(props['service:completeness']).toBe('partial_manifest_inventory');
    const resolutions = JSON.parse(props['service:resolutions'] ?? '') as { manifest: string; outcome: string }[];
    expect(resolutions.map((r) => `${r.manifest}:${r.outcome}`).sort()).toEqual(['bad/package.json:resolution_failed', 'ok/package.json:resolved']);
    expect(JSON.parse(props['service:declarations'] ?? '')).toEqual([{ manifest: 'bad/package.json', name: 'left', range: '^99.0.0', kind: 'dependencies' }]);
    const names = ((JSON.parse(result.document) as Json)['components'] as { name: string }[]).map((c) => c.name);
    expect(names).not.toContain('left');
  });

  it('resolves the rest of a manifest and keeps the requirements the registry cannot satisfy as declarations', async () => {
    const manifest = { name: 'mostly-fine', dependencies: { left: '^1.0.0', nowhere: '1.0.0' }, devDependencies: { 'dev-tool': '^9.0.0' } };
    const result = await analyze([{ path: 'package.json', content: JSON.stringify(manifest) }], 'cyclonedx', { resolver: await resolverFor() });
    const bom = JSON.parse(result.document) as Json;
    const names = (bom['components'] as { name: string; version: string }[]).map((c) => `${c.name}@${c.version}`).sort();
    expect(names).toEqual(['left@1.2.0', 'right@2.1.0']);
    const props = Object.fromEntries((bom['properties'] as { name: string; value: string }[]).map((p) => [p.name, p.value]));
    expect(props['service:completeness']).toBe('partial_manifest_inventory');
    expect(JSON.parse(props['service:resolutions'] ?? '')).toEqual([{ manifest: 'package.json', outcome: 'resolved', detail: null }]);
    // Arborist meets the two in no promised order.
    const declarations = (JSON.parse(props['service:declarations'] ?? '') as { name: string }[]).sort((a, b) => a.name.localeCompare(b.name));
    expect(declarations).toEqual([
      { manifest: 'package.json', name: 'dev-tool', range: '^9.0.0', kind: 'devDependencies' },
      { manifest: 'package.json', name: 'nowhere', range: '1.0.0', kind: 'dependencies' },
    ]);
    expect(props['service:notice']).toMatch(/nowhere/);
    expect(props['service:notice']).not.toMatch(/https?:\/\//);
  });

  it('fails the whole analysis with resolution_failed only when nothing could be resolved', async () => {
    const files = [{ path: 'package.json', content: JSON.stringify({ name: 'bad', dependencies: { nowhere: '1.0.0' } }) }];
    await expect(analyze(files, 'text', { resolver: await resolverFor() })).rejects.toMatchObject({ code: 'resolution_failed' });
  });

  it('gives resolution_timeout past the deadline', async () => {
    const slow = await startFixtureRegistry({ latencyMs: 2000, packages: { left: { versions: { '1.0.0': {} } } } });
    try {
      const { resolver } = await registryAnalysis({ cache: null, resolutionTimeoutMs: 200, npmOptions: await slow.npmOptions() });
      const files = [{ path: 'package.json', content: JSON.stringify({ name: 'slow', dependencies: { left: '1' } }) }];
      await expect(analyze(files, 'text', { resolver })).rejects.toMatchObject({ code: 'resolution_timeout' });
    } finally {
      await slow.close();
    }
  });

  it('combines lockfiles and resolved manifests as a mixed inventory', async () => {
    // extra/ sits beside the locked project, not below its lockfile (which would leave it unresolved, named in a notice).
    const files = [
      { ...lockfileOf({ right: { version: '2.0.0' } }), path: 'app/package-lock.json' },
      { path: 'app/package.json', content: JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { right: '2.0.0' } }) },
      { path: 'extra/package.json', content: JSON.stringify({ name: 'extra', dependencies: { left: '1.0.0' } }) },
    ];
    const result = await analyze(files, 'cyclonedx', { resolver: await resolverFor() });
    const props = Object.fromEntries(((JSON.parse(result.document) as Json)['properties'] as { name: string; value: string }[]).map((p) => [p.name, p.value]));
    expect(props['service:completeness']).toBe('mixed_dependency_inventory');
    expect(props['service:resolution_basis']).toBe('lockfile_records_and_manifest_resolution');
    expect(JSON.parse(props['service:manifest_associations'] ?? '')).toEqual([
      { manifest: 'app/package.json', lockfile: 'app/package-lock.json', role: 'root' },
      { manifest: 'extra/package.json', lockfile: null, role: 'standalone' },
    ]);
  });

  it('treats registry failures during resolution as transient', async () => {
    const broken = await startFixtureRegistry({ statusFor: () => 503 });
    try {
      const { resolver } = await registryAnalysis({ cache: null, resolutionTimeoutMs: 10_000, npmOptions: await broken.npmOptions() });
      const files = [{ path: 'package.json', content: JSON.stringify({ name: 'x', dependencies: { left: '1' } }) }];
      await expect(analyze(files, 'text', { resolver })).rejects.toMatchObject({ name: 'TransientAnalysisError' });
    } finally {
      await broken.close();
    }
  });
});
