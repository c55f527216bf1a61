import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cargoRange } from '../../src/ecosystems/cargo/source.js';
import { parseTarget } from '../../src/inventory/targets.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { expectArchiveListing, expectProblem, startRegistryFixture } from '../helpers/package-targets.js';
import { makeTarball } from '../helpers/tarball.js';

/** A crates.io fixture: `/api/v1/crates/<name>` and `/api/v1/crates/<name>/<version>/download`. */
const FILES: Record<string, string> = {
  'Cargo.toml': '[package]\nname = "demo"\nversion = "1.2.0"\n',
  'src/lib.rs': 'pub fn demo() {}\n',
  'src/odd name+#1.rs': 'pub const ODD: u8 = 1;\n',
  'tests/it.rs': '#[test]\nfn it() {}\n',
  'README.md': '# demo crate\n',
};

interface Crate {
  readonly repository: string | null;
  readonly versions: Record<string, { yanked?: boolean; archive?: Buffer; status?: number }>;
}

let crates: Record<string, Crate>;
let fixture: Awaited<ReturnType<typeof startRegistryFixture>>;
let h: JobsHarness;
let token: string;
const client = inventoryClient(
  () => h.app,
  () => token,
);
const { list, listOk } = client;

beforeAll(async () => {
  crates = {
    demo: {
      repository: 'https://github.com/owner/demo',
      versions: {
        '1.0.0': { archive: await makeTarball([{ name: 'demo-1.0.0/src/lib.rs', content: 'old\n' }]) },
        '1.2.0': { archive: await makeTarball(Object.entries(FILES).map(([p, c]) => ({ name: `demo-1.2.0/${p}`, content: c }))) },
        '1.3.0': { yanked: true, archive: await makeTarball([{ name: 'demo-1.3.0/src/lib.rs', content: 'yanked\n' }]) },
        '2.0.0-rc.1': { archive: await makeTarball([{ name: 'demo-2.0.0-rc.1/src/lib.rs', content: 'rc\n' }]) },
      },
    },
    gone: { repository: 'https://git.example.test/owner/gone.git', versions: { '0.1.0': { status: 404 } } },
  };
  fixture = await startRegistryFixture((path, _req, res) => {
    const m = /^\/api\/v1\/crates\/([^/]+)(?:\/([^/]+)\/download)?$/.exec(path);
    const name = m?.[1] ?? '';
    if (name === 'hangs') return; // never answers: the client's deadline ends it
    if (name === 'broken') return void res.writeHead(500).end('oops');
    if (name === 'garbled') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"crate": ');
    const crate = crates[name];
    if (!m || !crate) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"detail":"Not Found"}]}');
    if (m[2] === undefined) {
      const versions = Object.entries(crate.versions).map(([num, v]) => ({ num, yanked: v.yanked === true, dl_path: `/api/v1/crates/${name}/${num}/download` }));
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ crate: { name, repository: crate.repository }, versions }));
    }
    const version = crate.versions[m[2]];
    if (!version?.archive) return void res.writeHead(version?.status ?? 404).end();
    res.writeHead(200, { 'content-type': 'application/gzip' }).end(version.archive);
  });
  h = await startJobsHarness({ PACKAGE_REGISTRIES: JSON.stringify({ crates: fixture.url }), RESOLUTION_TIMEOUT_MS: '3000' });
  token = await h.token('lister');
});
afterAll(async () => {
  await Promise.all([h.close(), fixture.close()]);
});

describe('crates target grammar', () => {
  it('parses crates: and cargo: with lower-cased names and Cargo requirements', () => {
    expect(parseTarget('cargo:Serde@1.0.210')).toMatchObject({ ok: true, target: { registry: 'crates', name: 'serde', spec: '1.0.210', text: 'crates:serde@1.0.210' } });
    expect(parseTarget('crates:demo@>=1.0, <2')).toMatchObject({ ok: true, target: { spec: '>=1.0,<2' } });
    expect(parseTarget('crates:1bad')).toMatchObject({ ok: false });
    expect(cargoRange('1.2')).toBe('^1.2');
    expect(cargoRange('>=1.0,<2')).toBe('>=1.0 <2');
    expect(cargoRange('~1.2.3')).toBe('~1.2.3');
  });
});

describe('crates package targets', () => {
  it('lists the .crate exactly (top folder stripped), pages, filters and reads byte-exact', async () => {
    const workers = await h.startWorkers();
    try {
      const ready = await expectArchiveListing(client, 'crates:demo@1.2.0', FILES, 'tests/it.rs', 'src/odd name+#1.rs');
      expect(ready.target_resolution?.served).toMatchObject({ registry: 'crates', package_name: 'demo', version: '1.2.0', repo_url: 'https://github.com/owner/demo' });
      expect(ready.entries.find((e) => e.path === 'tests/it.rs')).toMatchObject({ language: 'rust', intent: 'test' });

      // Latest skips the yanked 1.3.0 and the prerelease; a requirement resolves; a pinned yanked version is served.
      const latest = await listOk({ target: 'cargo:Demo', wait_timeout_ms: 20_000 });
      expect(latest.indexed_version).toBe('1.2.0');
      const caret = await listOk({ target: 'crates:demo@1.0, <1.1', wait_timeout_ms: 20_000 });
      expect(caret.indexed_version).toBe('1.0.0');
      const yanked = await listOk({ target: 'crates:demo@1.3.0', wait_timeout_ms: 20_000, recursive: true });
      expect(yanked.entries.map((e) => e.path)).toEqual(['src/lib.rs']);
      const after2 = await listOk({ target: 'crates:demo@1.2.0' });
      expect((after2.available_versions ?? []).map((v) => v.version)).toEqual(expect.arrayContaining(['1.0.0', '1.2.0', '1.3.0']));

      const gone = await list({ target: 'crates:gone@0.1.0', wait_timeout_ms: 20_000 });
      expect(gone.statusCode).toBe(409);
      expect(gone.json()).toMatchObject({ code: 'SOURCE_INVENTORY_SCOPE_UNAVAILABLE', repo_url: 'https://git.example.test/owner/gone' });
    } finally {
      await workers.close();
    }
  });

  it.each([
    ['crates:nothing', 404, 'LIST_TARGET_NOT_FOUND'],
    ['crates:demo@9.9.9', 404, 'LIST_TARGET_NOT_FOUND'],
    ['crates:demo@^3', 404, 'LIST_TARGET_NOT_FOUND'],
    ['crates:broken', 502, 'REGISTRY_UNAVAILABLE'],
    ['crates:garbled', 502, 'LIST_UNSUPPORTED_API'],
    ['crates:hangs', 504, 'TIMEOUT'],
  ])('answers %s with %i %s', (target, status, code) => expectProblem(client, target, status, code));
});

describe('a crates registry that fails or cannot be reached', () => {
  it('is a 502 REGISTRY_UNAVAILABLE naming the registry and why, not an unsupported answer', async () => {
    const broken = await list({ target: 'crates:broken' });
    expect(broken.statusCode).toBe(502);
    expect(broken.json()).toMatchObject({ code: 'REGISTRY_UNAVAILABLE', detail: 'The crates registry failed (it answered 500); try again later.' });

    // Port 9 on loopback: nothing listens, the connection is refused at once.
    const refused = await startJobsHarness({ PACKAGE_REGISTRIES: JSON.stringify({ crates: 'http://127.0.0.1:9' }) });
    try {
      const refusedToken = await refused.token('lister');
      const res = await inventoryClient(
        () => refused.app,
        () => refusedToken,
      ).list({ target: 'crates:demo@1.2.0' });
      expect(res.statusCode).toBe(502);
      expect(res.json()).toMatchObject({ code: 'REGISTRY_UNAVAILABLE', detail: 'The crates registry could not be reached (ECONNREFUSED); try again later.' });
    } finally {
      await refused.close();
    }
  });
});
