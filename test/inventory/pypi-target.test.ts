import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListEntryType, ReadResponseType } from '../../src/inventory/schemas.js';
import { parseTarget } from '../../src/inventory/targets.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { makeTarball } from '../helpers/tarball.js';

/** A PyPI fixture speaking the JSON API (`/pypi/<name>/json`) and serving the release files it names. */
const FILES: Record<string, string> = {
  'pyproject.toml': '[project]\nname = "demo-pkg"\nversion = "2.1.0"\n',
  'src/demo_pkg/__init__.py': 'VALUE = 1\n',
  'src/demo_pkg/odd name+#1.py': 'ODD = True\n',
  'tests/test_demo.py': 'def test_it():\n    assert True\n',
  'PKG-INFO': 'Metadata-Version: 2.1\nName: demo-pkg\n',
};

interface Release {
  readonly yanked?: boolean;
  readonly sdist?: Buffer;
  readonly wheelOnly?: boolean;
}

let releases: Record<string, Release>;
let server: Server;
let h: JobsHarness;
let token: string;
const { list, listOk, read } = inventoryClient(
  () => h.app,
  () => token,
);

beforeAll(async () => {
  const sdist = async (version: string, files: Record<string, string>) =>
    makeTarball(Object.entries(files).map(([p, c]) => ({ name: `demo_pkg-${version}/${p}`, content: c })));
  releases = {
    '1.0.0': { sdist: await sdist('1.0.0', { 'setup.py': 'old\n' }) },
    '2.1.0': { sdist: await sdist('2.1.0', FILES) },
    '2.2.0': { yanked: true, sdist: await sdist('2.2.0', { 'setup.py': 'yanked\n' }) },
    '3.0.0rc1': { sdist: await sdist('3.0.0rc1', { 'setup.py': 'rc\n' }) },
    '0.9.0': { wheelOnly: true },
  };
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const base = `http://${req.headers.host ?? ''}`;
    if (path === '/pypi/hangs/json') return; // never answers: the client's deadline ends it
    if (path === '/pypi/broken/json') return void res.writeHead(500).end('oops');
    if (path === '/pypi/garbled/json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"info": ');
    if (path === '/pypi/demo-pkg/json') {
      const doc = Object.fromEntries(
        Object.entries(releases).map(([v, r]) => [
          v,
          r.wheelOnly
            ? [{ packagetype: 'bdist_wheel', filename: `demo_pkg-${v}-py3-none-any.whl`, url: `${base}/files/${v}.whl`, yanked: false }]
            : [{ packagetype: 'sdist', filename: `demo_pkg-${v}.tar.gz`, url: `${base}/files/${v}.tar.gz`, yanked: r.yanked === true }],
        ]),
      );
      const info = { name: 'Demo_Pkg', project_urls: { Homepage: 'https://demo.example.test', Source: 'https://github.com/owner/demo-pkg' } };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ info, releases: doc }));
    }
    const file = /^\/files\/(.+)\.tar\.gz$/.exec(path);
    const archive = file?.[1] === undefined ? undefined : releases[file[1]]?.sdist;
    if (archive) return void res.writeHead(200).end(archive);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await startJobsHarness({ PACKAGE_REGISTRIES: JSON.stringify({ pypi: url }), RESOLUTION_TIMEOUT_MS: '300' });
  token = await h.token('lister');
});
afterAll(async () => {
  server.closeAllConnections();
  await Promise.all([h.close(), new Promise((resolve) => server.close(resolve))]);
});

describe('pypi target grammar', () => {
  it('normalizes names by PEP 503 and keeps PEP 440 specifiers', () => {
    expect(parseTarget('pypi:Demo_Pkg@2.1.0')).toMatchObject({ ok: true, target: { registry: 'pypi', name: 'demo-pkg', spec: '2.1.0', text: 'pypi:demo-pkg@2.1.0' } });
    expect(parseTarget('pypi:demo.pkg@>=1.0, <2')).toMatchObject({ ok: true, target: { name: 'demo-pkg', spec: '>=1.0,<2' } });
    expect(parseTarget('pypi:-bad')).toMatchObject({ ok: false });
  });
});

describe('pypi package targets', () => {
  it('lists the sdist exactly (top folder stripped), pages, filters and reads byte-exact', async () => {
    const workers = await h.startWorkers();
    try {
      const target = 'pypi:demo-pkg@2.1.0';
      const ready = await listOk({ target, wait_timeout_ms: 20_000, recursive: true, limit: 500 });
      expect(ready.code_index_state).toBe('current');
      expect(ready.target_resolution?.served).toMatchObject({ registry: 'pypi', package_name: 'demo-pkg', version: '2.1.0', repo_url: 'https://github.com/owner/demo-pkg' });
      const files = ready.entries.filter((e) => e.kind === 'file');
      expect(files.map((e) => [e.path, e.byte_size, e.content_hash]).sort()).toEqual(
        Object.entries(FILES)
          .map(([p, c]) => [p, Buffer.byteLength(c), `sha256:${createHash('sha256').update(c).digest('hex')}`])
          .sort(),
      );
      const tests = await listOk({ target, recursive: true, intents: ['test'] });
      expect(tests.entries.map((e) => e.path)).toEqual(['tests/test_demo.py']);
      const seen: ListEntryType[] = [];
      let after: string | undefined;
      for (let guard = 0; guard < 20; guard++) {
        const page = await listOk({ target, recursive: true, limit: 2, ...(after ? { after } : {}) });
        seen.push(...page.entries);
        if (!page.has_more) break;
        after = page.next_cursor ?? undefined;
      }
      expect(seen).toEqual(ready.entries);
      const odd = await read(target, 'src/demo_pkg/odd name+#1.py');
      expect(odd.statusCode).toBe(200);
      expect(odd.json<ReadResponseType>()).toMatchObject({ content: FILES['src/demo_pkg/odd name+#1.py'], canonical_target: target });

      // Latest skips the yanked 2.2.0 and the prerelease; a specifier resolves; a pinned yanked release is served.
      expect((await listOk({ target: 'pypi:Demo.Pkg', wait_timeout_ms: 20_000 })).indexed_version).toBe('2.1.0');
      expect((await listOk({ target: 'pypi:demo-pkg@<2', wait_timeout_ms: 20_000 })).indexed_version).toBe('1.0.0');
      const yanked = await listOk({ target: 'pypi:demo-pkg@2.2.0', wait_timeout_ms: 20_000, recursive: true });
      expect(yanked.entries.map((e) => e.path)).toEqual(['setup.py']);
      // A release with wheels only has no listable archive yet: 409, with the repository to turn to.
      const wheel = await list({ target: 'pypi:demo-pkg@0.9.0', wait_timeout_ms: 20_000 });
      expect(wheel.statusCode).toBe(409);
      expect(wheel.json()).toMatchObject({ code: 'SOURCE_INVENTORY_SCOPE_UNAVAILABLE', repo_url: 'https://github.com/owner/demo-pkg' });
    } finally {
      await workers.close();
    }
  });

  it.each([
    ['pypi:nothing', 404, 'LIST_TARGET_NOT_FOUND'],
    ['pypi:demo-pkg@9.9.9', 404, 'LIST_TARGET_NOT_FOUND'],
    ['pypi:demo-pkg@>=4', 404, 'LIST_TARGET_NOT_FOUND'],
    ['pypi:broken', 502, 'LIST_UNSUPPORTED_API'],
    ['pypi:garbled', 502, 'LIST_UNSUPPORTED_API'],
    ['pypi:hangs', 504, 'TIMEOUT'],
  ])('answers %s with %i %s', async (target, status, code) => {
    const res = await list({ target });
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json()).toMatchObject({ code });
  });
});
