import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryAnalysis } from '../../src/sbom/registry-analysis.js';
import { registryHttp } from '../../src/ecosystems/shared/http.js';
import { cratesMetadataClient } from '../../src/ecosystems/cargo/registry.js';
import { RegistryEnricher } from '../../src/sbom/enrich.js';
import type { Coordinate, MetadataCache } from '../../src/model/enrich-types.js';
import { evidenceOf } from '../../src/sbom/evidence.js';
import type { PackageMetadata } from '../../src/model/metadata.js';
import { emptyInventory } from '../../src/model/model.js';
import { freePort } from '../helpers/cli.js';
import { startCratesRegistry, type CratesRegistry } from '../helpers/crates-registry.js';

/**
 * Enrichment degrades, never stalls: one budget per analysis (what is still out then is left
 * unenriched and its requests aborted), a short negative cache for coordinates that just failed,
 * and registries that cannot be reached named with their counts.
 */

/** A registry that takes requests and never answers; it tells when a request's connection closes. */
interface SilentRegistry {
  readonly url: string;
  readonly requests: string[];
  /** Resolves when `n` requests have been closed by the client. */
  closed(n: number): Promise<void>;
  close(): Promise<void>;
}

async function startSilentRegistry(): Promise<SilentRegistry> {
  const requests: string[] = [];
  let closes = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const server: Server = createServer((req: IncomingMessage) => {
    requests.push(req.url ?? '');
    req.socket.on('close', () => {
      closes++;
      for (const w of waiters.filter((w) => closes >= w.n)) w.resolve();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    closed: (n) => (closes >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const http = registryHttp({ retries: 0, timeoutMs: 60_000 });
let crates: CratesRegistry;
let silent: SilentRegistry;
beforeAll(async () => {
  crates = await startCratesRegistry({
    crates: {
      serde: { versions: { '1.0.200': { license: 'MIT OR Apache-2.0' } } },
      log: { versions: { '0.4.21': { license: 'MIT OR Apache-2.0' } } },
      broken: { versions: { '1.0.0': {} } },
    },
    statusFor: (name) => (name === 'broken' ? 500 : null),
  });
  silent = await startSilentRegistry();
});
afterAll(async () => {
  await http.destroy();
  await crates.close();
  await silent.close();
});

const GOOD: Coordinate[] = [
  { ecosystem: 'cargo', name: 'serde', version: '1.0.200' },
  { ecosystem: 'cargo', name: 'log', version: '0.4.21' },
];
/** Served by the registry that never answers (an ecosystem id of its own, so it has its own client). */
const SLOW: Coordinate = { ecosystem: 'cargo-silent', name: 'slow', version: '1.0.0' };

function enricher(options: ConstructorParameters<typeof RegistryEnricher>[2], cache: MetadataCache | null = null): RegistryEnricher {
  return new RegistryEnricher(
    new Map([
      ['cargo', cratesMetadataClient({ base: crates.url, http })],
      ['cargo-silent', cratesMetadataClient({ base: silent.url, http })],
    ]),
    cache,
    options,
  );
}

/** A cache in memory (the service's is Postgres, the CLI's a file): what an earlier run fetched. */
function memoryCache(entries: ReadonlyMap<string, PackageMetadata>): MetadataCache {
  return {
    getMany: async (keys) => new Map(keys.flatMap((k) => (entries.has(k) ? [[k, entries.get(k) as PackageMetadata] as const] : []))),
    setMany: async () => undefined,
  };
}

describe('registry enrichment that cannot finish', () => {
  it('leaves what is still out at the end of its budget unenriched, aborts its requests, and says so', async () => {
    // What the registry answered before (fetched without a budget worth the name) comes from the cache.
    const earlier = await enricher({}).enrich(GOOD, () => undefined, undefined);
    expect(earlier.failed).toEqual([]);
    const before = silent.requests.length;
    const result = await enricher({ budgetMs: 300 }, memoryCache(earlier.metadata)).enrich([...GOOD, SLOW], () => undefined, undefined);
    expect([...result.metadata.keys()].sort()).toEqual(['cargo:log@0.4.21', 'cargo:serde@1.0.200']);
    expect(result.failed).toEqual(['cargo-silent:slow@1.0.0']);
    expect(result.outOfBudget).toEqual({ budgetMs: 300, coordinates: 1 });
    expect(result.failedOtherwise).toEqual([]);
    expect(result.counts).toMatchObject({ coordinates_total: 3, coordinates_done: 3, cached: 2, fetch_failed: 1 });
    // The request still out was aborted (its 60 s deadline would otherwise keep it open).
    await silent.closed(before + 1);
    expect(evidenceOf(emptyInventory(), result.failed, result).notice).toContain(
      'Registry enrichment stopped at its budget of 300 ms: 1 component(s) carry only what the lockfile records.',
    );
  });

  it('shares a fetch between analyses and aborts it only when none of them waits any more', async () => {
    const shared = enricher({ budgetMs: 300 });
    const before = silent.requests.length;
    const stopped = new AbortController();
    const first = shared.enrich([SLOW], () => undefined, stopped.signal);
    const second = shared.enrich([SLOW], () => undefined, undefined);
    stopped.abort(new Error('the first job was cancelled'));
    await expect(first).rejects.toThrow('the first job was cancelled');
    const result = await second;
    // The second analysis waited until its own budget's end: the request was not abandoned under it.
    expect(result.outOfBudget).toEqual({ budgetMs: 300, coordinates: 1 });
    expect(result.failedOtherwise).toEqual([]);
    expect(silent.requests.length - before).toBe(1);
    await silent.closed(before + 1);
  });

  it('answers a coordinate that just failed as failed without asking again, until its short negative cache lapses', async () => {
    let clock = 0;
    const e = enricher({ negativeTtlMs: 30_000, now: () => clock });
    const broken: Coordinate = { ecosystem: 'cargo', name: 'broken', version: '1.0.0' };
    const asked = (): number => crates.requests.filter((p) => p.startsWith('/api/v1/crates/broken')).length;
    const first = await e.enrich([broken, ...GOOD], () => undefined, undefined);
    expect(first.failed).toEqual(['cargo:broken@1.0.0']);
    expect(asked()).toBe(1);
    clock += 29_999;
    const second = await e.enrich([broken], () => undefined, undefined);
    expect(second.failed).toEqual(['cargo:broken@1.0.0']);
    expect(asked()).toBe(1);
    clock += 1;
    await e.enrich([broken], () => undefined, undefined);
    expect(asked()).toBe(2);
  });
});

describe('a registry that cannot be reached', () => {
  it('is named by its PACKAGE_REGISTRIES key with the count of components it left as recorded', async () => {
    const origin = `http://127.0.0.1:${await freePort()}`;
    const analysis = await registryAnalysis({ cache: null, resolutionTimeoutMs: 10_000, packageRegistries: { crates: origin } });
    try {
      const coordinates = ['anyhow', 'bitflags', 'cfg-if', 'libc', 'memchr'].map((name) => ({ ecosystem: 'cargo', name, version: '1.0.0' }));
      const result = await analysis.registry.enrich(coordinates, () => undefined, undefined);
      expect(result.failed).toHaveLength(5);
      expect(result.unreachable).toEqual([{ registry: 'crates', origin, reason: 'ECONNREFUSED', coordinates: 5 }]);
      expect(result.failedOtherwise).toEqual([]);
      const notice = evidenceOf(emptyInventory(), result.failed, result).notice;
      expect(notice).toContain(`crates registry at ${origin} could not be reached (connection refused): 5 component(s) carry only what the lockfile records.`);
      // Not also listed one by one.
      expect(notice).not.toContain('Registry metadata could not be fetched');
    } finally {
      await analysis.destroy();
    }
  });
});
