import { afterEach } from 'vitest';
import { registryHttp } from '../../src/ecosystems/shared/http.js';
import type { RegistryEndpoint } from '../../src/ecosystems/types.js';

/**
 * A registry HTTP client for a test's own fixture server, without retries. Its deadline is short
 * only where the server is made never to answer: a request that should succeed keeps 5 s, as a
 * deadline of 300 ms on every request failed now and then when the suite loaded the machine.
 */
export function fixtureHttp(hangs: boolean): ReturnType<typeof registryHttp> {
  return fixtureClient(hangs ? 300 : 5_000);
}

function fixtureClient(timeoutMs: number): ReturnType<typeof registryHttp> {
  return registryHttp({ timeoutMs, retries: 0, userAgent: 'pkgscope-test (fixture)' });
}

/**
 * Starts fixture registries (any of the `start*Registry` servers) with a registry HTTP client
 * pointed at each (no retries: failure tests want the failure at once); everything started is
 * closed after each test.
 */
export function registryFixtures<O, R extends { readonly url: string; close(): Promise<void> }>(
  start: (options: O) => Promise<R>,
): (options: O, timeoutMs?: number) => Promise<{ registry: R; endpoint: RegistryEndpoint }> {
  const open: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of open.splice(0)) await close();
  });
  return async (options, timeoutMs = 5_000) => {
    const registry = await start(options);
    const http = fixtureClient(timeoutMs);
    open.push(() => http.close(), () => registry.close());
    return { registry, endpoint: { base: registry.url, http } };
  };
}
