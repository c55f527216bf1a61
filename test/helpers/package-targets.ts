import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { ListEntryType, ListResponseType, ReadResponseType } from '../../src/routes/inventory/schemas.js';
import type { inventoryClient } from './inventory-client.js';

/** Shared checks of package targets of every registry: fixture servers and the listing's exactness. */

/** A registry fixture on 127.0.0.1 at a random port. */
export async function startRegistryFixture(handle: (path: string, req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => handle(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname), req, res));
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * `PACKAGE_REGISTRIES` for one fixture server that serves every registry under a path of its own
 * (PyPI and crates.io at its root, whose API paths do not collide).
 */
export function registriesAt(url: string) {
  return {
    pypi: url,
    crates: url,
    go: `${url}/go`,
    maven: `${url}/maven`,
    rubygems: `${url}/rubygems`,
    nuget: `${url}/nuget/v3/index.json`,
    packagist: `${url}/packagist`,
    pub: `${url}/pub`,
    hex: `${url}/hex`,
    hex_repo: `${url}/hexrepo`,
  };
}

/**
 * Waits for the target's inventory, then checks that it lists exactly `files` (paths, sizes,
 * sha256), that an intent filter keeps `testFile` alone, that paging by 2 walks the whole
 * listing, and that `oddFile` reads back byte-exact.
 */
export async function expectArchiveListing(
  client: ReturnType<typeof inventoryClient>,
  target: string,
  files: Readonly<Record<string, string>>,
  testFile: string,
  oddFile: string,
): Promise<ListResponseType> {
  const ready = await client.listOk({ target, wait_timeout_ms: 20_000, recursive: true, limit: 500 });
  expect(ready.code_index_state).toBe('current');
  const listed = ready.entries.filter((e) => e.kind === 'file');
  expect(listed.map((e) => [e.path, e.byte_size, e.content_hash]).sort()).toEqual(
    Object.entries(files)
      .map(([p, c]) => [p, Buffer.byteLength(c), `sha256:${createHash('sha256').update(c).digest('hex')}`])
      .sort(),
  );
  const tests = await client.listOk({ target, recursive: true, intents: ['test'] });
  expect(tests.entries.map((e) => e.path)).toEqual([testFile]);
  const seen: ListEntryType[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 20; guard++) {
    const page = await client.listOk({ target, recursive: true, limit: 2, ...(after ? { after } : {}) });
    seen.push(...page.entries);
    if (!page.has_more) break;
    after = page.next_cursor ?? undefined;
  }
  expect(seen).toEqual(ready.entries);
  const odd = await client.read(target, oddFile);
  expect(odd.statusCode).toBe(200);
  expect(odd.json<ReadResponseType>()).toMatchObject({ content: files[oddFile], canonical_target: target });
  return ready;
}

/** A target answered with this status and problem code. */
export async function expectProblem(client: ReturnType<typeof inventoryClient>, target: string, status: number, code: string): Promise<void> {
  const res = await client.list({ target });
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toMatchObject({ code });
}
