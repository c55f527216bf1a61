import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/inventory/targets.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { expectArchiveListing, expectProblem, startRegistryFixture } from '../helpers/package-targets.js';
import { makeTarball } from '../helpers/tarball.js';
import { makeZip } from '../helpers/zip.js';

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
  readonly wheel?: Buffer;
}

let releases: Record<string, Release>;
let fixture: Awaited<ReturnType<typeof startRegistryFixture>>;
let h: JobsHarness;
let token: string;
const client = inventoryClient(
  () => h.app,
  () => token,
);
const { listOk } = client;

beforeAll(async () => {
  const sdist = async (version: string, files: Record<string, string>) =>
    makeTarball(Object.entries(files).map(([p, c]) => ({ name: `demo_pkg-${version}/${p}`, content: c })));
  releases = {
    '1.0.0': { sdist: await sdist('1.0.0', { 'setup.py': 'old\n' }) },
    '2.1.0': { sdist: await sdist('2.1.0', FILES) },
    '2.2.0': { yanked: true, sdist: await sdist('2.2.0', { 'setup.py': 'yanked\n' }) },
    '3.0.0rc1': { sdist: await sdist('3.0.0rc1', { 'setup.py': 'rc\n' }) },
    '0.9.0': { wheel: await makeZip({ 'demo_pkg/__init__.py': 'VALUE = 0\n', 'demo_pkg-0.9.0.dist-info/METADATA': 'Name: demo-pkg\n' }) },
  };
  fixture = await startRegistryFixture((path, req, res) => {
    const base = `http://${req.headers.host ?? ''}`;
    if (path === '/pypi/hangs/json') return; // never answers: the client's deadline ends it
    if (path === '/pypi/broken/json') return void res.writeHead(500).end('oops');
    if (path === '/pypi/garbled/json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"info": ');
    if (path === '/pypi/demo-pkg/json') {
      const doc = Object.fromEntries(
        Object.entries(releases).map(([v, r]) => [
          v,
          r.wheel
            ? [
                { packagetype: 'bdist_wheel', filename: `demo_pkg-${v}-cp312-cp312-manylinux_2_17_x86_64.whl`, url: `${base}/files/${v}-cp312.whl`, yanked: false },
                { packagetype: 'bdist_wheel', filename: `demo_pkg-${v}-py3-none-any.whl`, url: `${base}/files/${v}.whl`, yanked: false },
              ]
            : [{ packagetype: 'sdist', filename: `demo_pkg-${v}.tar.gz`, url: `${base}/files/${v}.tar.gz`, yanked: r.yanked === true }],
        ]),
      );
      const info = { name: 'Demo_Pkg', project_urls: { Homepage: 'https://demo.example.test', Source: 'https://github.com/owner/demo-pkg' } };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ info, releases: doc }));
    }
    const file = /^\/files\/(.+)\.tar\.gz$/.exec(path);
    const archive = file?.[1] === undefined ? undefined : releases[file[1]]?.sdist;
    if (archive) return void res.writeHead(200).end(archive);
    const wheel = /^\/files\/([^-]+)\.whl$/.exec(path);
    const wheelBytes = wheel?.[1] === undefined ? undefined : releases[wheel[1]]?.wheel;
    if (wheelBytes) return void res.writeHead(200).end(wheelBytes);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
  });
  const url = fixture.url;
  h = await startJobsHarness({ PACKAGE_REGISTRIES: JSON.stringify({ pypi: url }), RESOLUTION_TIMEOUT_MS: '3000' });
  token = await h.token('lister');
});
afterAll(async () => {
  await Promise.all([h.close(), fixture.close()]);
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
      const ready = await expectArchiveListing(client, target, FILES, 'tests/test_demo.py', 'src/demo_pkg/odd name+#1.py');
      expect(ready.target_resolution?.served).toMatchObject({ registry: 'pypi', package_name: 'demo-pkg', version: '2.1.0', repo_url: 'https://github.com/owner/demo-pkg' });

      // Latest skips the yanked 2.2.0 and the prerelease; a specifier resolves; a pinned yanked release is served.
      expect((await listOk({ target: 'pypi:Demo.Pkg', wait_timeout_ms: 20_000 })).indexed_version).toBe('2.1.0');
      expect((await listOk({ target: 'pypi:demo-pkg@<2', wait_timeout_ms: 20_000 })).indexed_version).toBe('1.0.0');
      const yanked = await listOk({ target: 'pypi:demo-pkg@2.2.0', wait_timeout_ms: 20_000, recursive: true });
      expect(yanked.entries.map((e) => e.path)).toEqual(['setup.py']);
      // A release with wheels only lists its pure-Python wheel, whose tree starts at its root.
      const wheel = await listOk({ target: 'pypi:demo-pkg@0.9.0', wait_timeout_ms: 20_000, recursive: true });
      expect(wheel.entries.filter((e) => e.kind === 'file').map((e) => e.path)).toEqual(['demo_pkg-0.9.0.dist-info/METADATA', 'demo_pkg/__init__.py']);
    } finally {
      await workers.close();
    }
  });

  it.each([
    ['pypi:nothing', 404, 'LIST_TARGET_NOT_FOUND'],
    ['pypi:demo-pkg@9.9.9', 404, 'LIST_TARGET_NOT_FOUND'],
    ['pypi:demo-pkg@>=4', 404, 'LIST_TARGET_NOT_FOUND'],
    ['pypi:broken', 502, 'REGISTRY_UNAVAILABLE'],
    ['pypi:garbled', 502, 'LIST_UNSUPPORTED_API'],
    ['pypi:hangs', 504, 'TIMEOUT'],
  ])('answers %s with %i %s', (target, status, code) => expectProblem(client, target, status, code));
});
