import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListEntryType, ReadResponseType } from '../../src/inventory/schemas.js';
import { cargoRange } from '../../src/inventory/sources/crates.js';
import { parseTarget } from '../../src/inventory/targets.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
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
let server: Server;
let base: string;
let h: JobsHarness;
let token: string;
const { list, listOk, read } = inventoryClient(
  () => h.app,
  () => token,
);

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
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
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
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await startJobsHarness({ PACKAGE_REGISTRIES: JSON.stringify({ crates: base }), RESOLUTION_TIMEOUT_MS: '300' });
  token = await h.token('lister');
});
afterAll(async () => {
  server.closeAllConnections();
  await Promise.all([h.close(), new Promise((resolve) => server.close(resolve))]);
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
      const ready = await listOk({ target: 'crates:demo@1.2.0', wait_timeout_ms: 20_000, recursive: true, limit: 500 });
      expect(ready.code_index_state).toBe('current');
      expect(ready.target_resolution?.served).toMatchObject({ registry: 'crates', package_name: 'demo', version: '1.2.0', repo_url: 'https://github.com/owner/demo' });
      const files = ready.entries.filter((e) => e.kind === 'file');
      expect(files.map((e) => [e.path, e.byte_size, e.content_hash]).sort()).toEqual(
        Object.entries(FILES)
          .map(([p, c]) => [p, Buffer.byteLength(c), `sha256:${createHash('sha256').update(c).digest('hex')}`])
          .sort(),
      );
      expect(files.find((e) => e.path === 'tests/it.rs')).toMatchObject({ language: 'rust', intent: 'test' });
      const tests = await listOk({ target: 'crates:demo@1.2.0', recursive: true, intents: ['test'] });
      expect(tests.entries.map((e) => e.path)).toEqual(['tests/it.rs']);
      const seen: ListEntryType[] = [];
      let after: string | undefined;
      for (let guard = 0; guard < 20; guard++) {
        const page = await listOk({ target: 'crates:demo@1.2.0', recursive: true, limit: 2, ...(after ? { after } : {}) });
        seen.push(...page.entries);
        if (!page.has_more) break;
        after = page.next_cursor ?? undefined;
      }
      expect(seen).toEqual(ready.entries);
      const odd = await read('crates:demo@1.2.0', 'src/odd name+#1.rs');
      expect(odd.statusCode).toBe(200);
      expect(odd.json<ReadResponseType>()).toMatchObject({ content: FILES['src/odd name+#1.rs'], canonical_target: 'crates:demo@1.2.0' });

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
    ['crates:broken', 502, 'LIST_UNSUPPORTED_API'],
    ['crates:garbled', 502, 'LIST_UNSUPPORTED_API'],
    ['crates:hangs', 504, 'TIMEOUT'],
  ])('answers %s with %i %s', async (target, status, code) => {
    const res = await list({ target });
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json()).toMatchObject({ code });
  });
});
