import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogWatcher, spawnTs, stopChild } from '../helpers/cli.js';
import { npmPackages, startEveryRegistry, type EveryRegistry } from '../helpers/every-registry.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, workerCliEnv, type JobsHarness } from '../helpers/jobs.js';

/**
 * A worker process that ran Node's global fetch before anything imported undici (its global
 * dispatcher is then Node's bundled undici) prepares a package target of every registry: each
 * archive downloads through the project's own dispatchers and is listed.
 */

const SCRIPT = fileURLToPath(new URL('./fetch-first-worker.ts', import.meta.url));

let registries: EveryRegistry;
let h: JobsHarness;
let token: string;
let worker: ChildProcess | undefined;
const client = inventoryClient(
  () => h.app,
  () => token,
);

beforeAll(async () => {
  registries = await startEveryRegistry();
  h = await startJobsHarness({ PACKAGE_REGISTRIES: JSON.stringify(registries.registries) }, { packages: await npmPackages() });
  token = await h.token('fetch-first');
  worker = spawnTs(SCRIPT, ['worker'], workerCliEnv(h, { PACKAGE_REGISTRIES: JSON.stringify(registries.registries), FETCH_FIRST_URL: `${registries.url}/first` }));
  const logs = new LogWatcher(worker);
  await logs.waitFor((l) => l['msg'] === 'global fetch done');
  await logs.waitFor((l) => l['msg'] === 'worker started');
}, 60_000);

afterAll(async () => {
  if (worker !== undefined) await stopChild(worker, 'SIGKILL');
  await h.close();
  await registries.close();
});

describe('a worker whose process ran the global fetch first', () => {
  it('prepared the global fetch before loading the service', () => {
    expect(registries.requests[0]).toBe('/first');
  });

  it('downloads and lists a package target of every registry', async () => {
    const outcomes = await Promise.all(
      registries.cases.map(async ({ registry, target }) => {
        const listed = await client.listOk({ target, wait_timeout_ms: 30_000, recursive: true, limit: 500 });
        const paths = listed.entries.filter((e) => e.kind === 'file').map((e) => e.path);
        return { registry, state: listed.code_index_state, reason: listed.target_resolution?.freshness_reason ?? null, paths: paths.sort() };
      }),
    );
    // Every registry at once, so a failure shows which of them did not list.
    expect(outcomes).toEqual(registries.cases.map(({ registry, files }) => ({ registry, state: 'current', reason: null, paths: Object.keys(files).sort() })));
  }, 90_000);
});
