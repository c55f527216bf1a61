/**
 * bench:sbom — a ~2,700-entry package-lock.json through analyze with a warm metadata cache (phase
 * times, total, peak RSS), and cold enrichment of 500 coordinates against a registry answering
 * in 20 ms. Targets: total < 500 ms and RSS < 300 MB warm; cold enrichment < 2 s.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { connectDatabase } from '../src/db/client.js';
import { npmMetadataClient } from '../src/ecosystems/npm/registry.js';
import { PgMetadataCache } from '../src/db/metadata-cache.js';
import { analyze } from '../src/sbom/analyze.js';
import { RegistryEnricher } from '../src/sbom/enrich.js';
import { anyPackage, startFixtureRegistry } from '../test/helpers/registry.js';
import { benchDatabase, ms } from './helpers.js';
import { startPolyglotRegistry } from './polyglot-registry.js';

const lock = readFileSync(new URL('fixtures/large/package-lock.json', import.meta.url), 'utf8');
const files = [
  { path: 'package.json', content: readFileSync(new URL('fixtures/large/package.json', import.meta.url), 'utf8') },
  { path: 'package-lock.json', content: lock },
];
console.log(`lockfile: ${Object.keys((JSON.parse(lock) as { packages: object }).packages).length - 1} entries`);

// Fill the Postgres metadata cache the way a first job would.
const databaseUrl = await benchDatabase('pkgscope_bench_sbom');
const database = connectDatabase(databaseUrl, { max: 4 });
const registry = await startFixtureRegistry({ fallback: anyPackage });
const filler = new RegistryEnricher(new Map([['npm', npmMetadataClient(await registry.npmOptions())]]), new PgMetadataCache(database.db), 32);
let start = performance.now();
const cold = await analyze(files, 'cyclonedx', { registry: filler });
console.log(`cold run (fetches every coordinate from a local registry): ${ms(performance.now() - start)}, fetched ${cold.counts.fetched}`);
await registry.close();
await database.close();

const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(new URL('sbom-warm.ts', import.meta.url)), databaseUrl], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
process.stdout.write(child.stdout);

const slow = await startFixtureRegistry({ fallback: anyPackage, latencyMs: 20 });
const enricher = new RegistryEnricher(new Map([['npm', npmMetadataClient(await slow.npmOptions())]]), null, 16);
const coords = Array.from({ length: 500 }, (_, i) => ({ ecosystem: 'npm', name: `cold-${i}`, version: '1.0.0' }));
start = performance.now();
const result = await enricher.enrich(coords, () => undefined, undefined);
console.log(
  `cold enrichment: 500 coordinates, registry latency 20 ms, concurrency 16: ${ms(performance.now() - start)} ` +
    `(${result.metadata.size} fetched, ${result.failed.length} failed)`,
);
await slow.close();

// Several ecosystems in one upload: cold (every coordinate from registries answering in 20 ms),
// then warm (the same coordinates from the Postgres cache), each in a fresh process.
const polyglotDatabase = await benchDatabase('pkgscope_bench_polyglot');
const registries = await startPolyglotRegistry(20);
for (const mode of ['cold', 'warm']) {
  // Not spawnSync: the registries answer from this process's event loop.
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('polyglot.ts', import.meta.url)), polyglotDatabase, mode, registries.url], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await once(child, 'exit');
}
console.log(`polyglot: ${registries.requests()} registry requests in all`);
await registries.close();
