import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advisorySync } from '../../src/advisories/maintenance.js';
import { pgAdvisoryLookup } from '../../src/advisories/pg-lookup.js';
import { AdvisoryStore, type AdvisorySourceStatus } from '../../src/advisories/store.js';
import { syncAdvisories, type SyncDeps, type SyncOutcome } from '../../src/advisories/sync.js';
import { createOutgoing, type Outgoing } from '../../src/net/dispatchers.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { captureLogs } from '../helpers/logs.js';
import { makeZip } from '../helpers/zip.js';
import { startAdvisoryServer, type AdvisoryServer } from './sync-server.js';

/** Real advisories: golang/vulndb (4,291, all valid) and the PyPA database (2,661, of which 7 break the OSV schema: GIT ranges whose `fixed` is no commit hash). */
const GO = 4_291;
const PYPI = 2_661 - 7;

/** A real npm advisory (GHSA-35jh-r3h4-6jhm, lodash command injection), cut to what the schema needs. */
const LODASH = {
  schema_version: '1.4.0',
  id: 'GHSA-35jh-r3h4-6jhm',
  modified: '2024-02-16T08:12:26Z',
  published: '2021-05-06T16:05:51Z',
  aliases: ['CVE-2021-23337'],
  summary: 'Command Injection in lodash',
  affected: [{ package: { ecosystem: 'npm', name: 'lodash' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '4.17.21' }] }] }],
  references: [{ type: 'ADVISORY', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-23337' }],
};

let db: TestDatabase;
let server: AdvisoryServer;
let outgoing: Outgoing;
let store: AdvisoryStore;

beforeAll(async () => {
  db = await createTestDatabase();
  server = await startAdvisoryServer();
  // The test server listens on a loopback address: private addresses allowed.
  outgoing = createOutgoing({ trusted: [], allowPrivate: true });
  store = new AdvisoryStore(db.db);
});
afterAll(async () => {
  await outgoing.close();
  await server.close();
  await db.drop();
});

function deps(ecosystems: readonly string[], logger: SyncDeps['logger'], baseUrl = server.url): SyncDeps {
  return { store, baseUrl, ecosystems, dispatcher: outgoing.following, logger };
}

async function source(ecosystem: string): Promise<AdvisorySourceStatus> {
  const found = (await store.sources()).find((s) => s.ecosystem === ecosystem);
  if (found === undefined) throw new Error(`no source row for ${ecosystem}`);
  return found;
}

async function generation(ecosystem: string): Promise<number | null> {
  const result = await db.pool.query<{ generation: string | null }>('SELECT generation FROM advisory_sources WHERE ecosystem = $1', [ecosystem]);
  return result.rows[0]?.generation === null || result.rows[0] === undefined ? null : Number(result.rows[0].generation);
}

function outcome(outcomes: readonly SyncOutcome[] | null, ecosystem: string): SyncOutcome {
  const found = outcomes?.find((o) => o.ecosystem === ecosystem);
  if (found === undefined) throw new Error(`no outcome for ${ecosystem}`);
  return found;
}

describe('advisory sync from an OSV bulk layout', () => {
  it('imports Go and PyPI: every valid advisory, the schema-invalid ones skipped, counted and logged once', async () => {
    const logs = captureLogs();
    const outcomes = await syncAdvisories(deps(['Go', 'PyPI'], logs.logger));
    expect(outcomes?.map((o) => o.outcome)).toEqual(['imported', 'imported']);
    const go = await source('Go');
    const pypi = await source('PyPI');
    expect(go).toMatchObject({ state: 'ready', advisories: GO, reason: null, origin: `${server.url}/Go/all.zip` });
    expect(pypi).toMatchObject({ state: 'ready', advisories: PYPI, reason: null });
    // golang/vulndb writes modified 0001-01-01 in every document; it must survive the round trip.
    expect(go.modifiedMax).toBe('0001-01-01T00:00:00.000Z');
    expect(pypi.modifiedMax).toBe('2024-10-10T17:22:00.587Z');
    expect(go.syncedAt).not.toBeNull();
    const skipped = logs.lines().filter((l) => l['msg'] === 'advisory entries skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ ecosystem: 'PyPI', skipped: 7, reasons: { schema: 7 } });
    expect(String((skipped[0]?.['examples'] as string[])[0])).toMatch(/fixed must match pattern/);
    // The lookup reads what was swapped in, by normalised name.
    const lookup = pgAdvisoryLookup(db.db);
    const jinja = await lookup.byPackages('PyPI', ['Jinja2']);
    expect(jinja.map((a) => a.id)).toContain('PYSEC-2019-217');
    expect(jinja.every((a) => a.affected?.some((x) => x.package?.name.toLowerCase() === 'jinja2'))).toBe(true);
    const net = await lookup.byPackages('Go', ['golang.org/x/net']);
    expect(net.length).toBeGreaterThan(10);
    expect(await lookup.byPackages('Go', ['example.com/no-such-module'])).toEqual([]);
    expect(await lookup.snapshots()).toEqual([
      { ecosystem: 'Go', advisories: GO, modifiedMax: '0001-01-01T00:00:00.000Z', syncedAt: go.syncedAt },
      { ecosystem: 'PyPI', advisories: PYPI, modifiedMax: '2024-10-10T17:22:00.587Z', syncedAt: pypi.syncedAt },
    ]);
  }, 120_000);

  it('asks again with the validators: a 304 imports nothing and keeps the generation', async () => {
    const before = { go: await generation('Go'), pypi: await generation('PyPI'), synced: (await source('Go')).syncedAt };
    const seen = server.requests.length;
    const outcomes = await syncAdvisories(deps(['Go', 'PyPI'], captureLogs().logger));
    expect(outcomes?.map((o) => o.outcome)).toEqual(['not_modified', 'not_modified']);
    const asked = server.requests.slice(seen);
    expect(asked.map((r) => r.status)).toEqual([304, 304]);
    expect(asked.every((r) => r.ifNoneMatch !== null && r.ifModifiedSince !== null)).toBe(true);
    expect(await generation('Go')).toBe(before.go);
    expect(await generation('PyPI')).toBe(before.pypi);
    const go = await source('Go');
    expect(go).toMatchObject({ state: 'ready', advisories: GO });
    expect(Date.parse(go.syncedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(before.synced ?? ''));
  });

  it('a corrupt zip leaves the loaded set in place, shows failed with its reason and is logged once', async () => {
    const kept = await generation('Go');
    server.override('/Go/all.zip', Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(4096, 7)]));
    try {
      const logs = captureLogs();
      const outcomes = await syncAdvisories(deps(['Go'], logs.logger));
      expect(outcome(outcomes, 'Go')).toMatchObject({ outcome: 'failed', error: { code: 'corrupt_archive' } });
      const go = await source('Go');
      expect(go).toMatchObject({ state: 'failed', advisories: GO });
      expect(go.reason).toMatch(/^corrupt_archive: /);
      expect(await generation('Go')).toBe(kept);
      expect((await pgAdvisoryLookup(db.db).byPackages('Go', ['golang.org/x/net'])).length).toBeGreaterThan(10);
      const failures = logs.lines().filter((l) => l['msg'] === 'advisory sync failed; the loaded advisories stay in place');
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ ecosystem: 'Go', code: 'corrupt_archive' });
    } finally {
      server.override('/Go/all.zip', null);
    }
    // The next sync finds the archive it holds unchanged (304): ready again, same generation.
    const outcomes = await syncAdvisories(deps(['Go'], captureLogs().logger));
    expect(outcome(outcomes, 'Go').outcome).toBe('not_modified');
    expect(await source('Go')).toMatchObject({ state: 'ready', reason: null, advisories: GO });
    expect(await generation('Go')).toBe(kept);
  });

  it('an archive whose entry breaks the schema is imported without it, and the count is logged once', async () => {
    const broken = { ...LODASH, id: 'GHSA-aaaa-bbbb-cccc', modified: 'last tuesday' };
    server.override(
      '/npm/all.zip',
      await makeZip({ 'GHSA-35jh-r3h4-6jhm.json': JSON.stringify(LODASH), 'GHSA-aaaa-bbbb-cccc.json': JSON.stringify(broken), 'not-json.json': '{"id": ' }),
    );
    try {
      const logs = captureLogs();
      const outcomes = await syncAdvisories(deps(['npm'], logs.logger));
      expect(outcome(outcomes, 'npm')).toMatchObject({ outcome: 'imported', skipped: 2 });
      expect(await source('npm')).toMatchObject({ state: 'ready', advisories: 1, modifiedMax: '2024-02-16T08:12:26.000Z' });
      const skipped = logs.lines().filter((l) => l['msg'] === 'advisory entries skipped');
      expect(skipped).toHaveLength(1);
      expect(skipped[0]).toMatchObject({ ecosystem: 'npm', skipped: 2, reasons: { schema: 1, invalid_json: 1 } });
      expect((await pgAdvisoryLookup(db.db).byPackages('npm', ['lodash'])).map((a) => a.id)).toEqual(['GHSA-35jh-r3h4-6jhm']);
    } finally {
      server.override('/npm/all.zip', null);
    }
  });

  it('an unknown ecosystem fails visibly: one pkgscope does not match, and one the database does not have (404)', async () => {
    const logs = captureLogs();
    const outcomes = await syncAdvisories(deps(['Foo', 'crates.io'], logs.logger));
    expect(outcome(outcomes, 'Foo')).toMatchObject({ outcome: 'failed', error: { code: 'unknown_ecosystem' } });
    expect(outcome(outcomes, 'crates.io')).toMatchObject({ outcome: 'failed', error: { code: 'unknown_ecosystem' } });
    expect((await source('Foo')).reason).toMatch(/^unknown_ecosystem: pkgscope matches no OSV ecosystem named "Foo"/);
    expect(await source('crates.io')).toMatchObject({ state: 'failed', advisories: 0 });
    expect((await source('crates.io')).reason).toMatch(/answered 404/);
    expect(logs.lines().filter((l) => l['msg'] === 'advisory sync failed; the loaded advisories stay in place')).toHaveLength(2);
  });

  it('an unreachable database leaves the loaded set in place and shows failed with its reason', async () => {
    // A port nothing listens on: a server that just closed its own.
    const gone = await startAdvisoryServer();
    const url = gone.url;
    await gone.close();
    const logs = captureLogs();
    const outcomes = await syncAdvisories(deps(['Go', 'PyPI'], logs.logger, url));
    expect(outcomes?.map((o) => o.outcome)).toEqual(['failed', 'failed']);
    const go = await source('Go');
    expect(go).toMatchObject({ state: 'failed', advisories: GO });
    expect(go.reason).toMatch(/^unreachable: GET http:\/\/127\.0\.0\.1:\d+\/Go\/all\.zip: ECONNREFUSED/);
    expect(await source('PyPI')).toMatchObject({ state: 'failed', advisories: PYPI });
    expect((await pgAdvisoryLookup(db.db).byPackages('PyPI', ['jinja2'])).length).toBeGreaterThan(0);
    expect(logs.lines().filter((l) => l['msg'] === 'advisory sync failed; the loaded advisories stay in place')).toHaveLength(2);
  });

  it('runs one sync at a time: while another writer holds the lock, a sync is skipped', async () => {
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const other = new AdvisoryStore(db.db).exclusively(false, async () => {
      entered();
      await holding;
    });
    await inside;
    try {
      expect(await syncAdvisories(deps(['Go'], captureLogs().logger))).toBeNull();
    } finally {
      release();
    }
    expect(await other).not.toBeNull();
    // Free again: the next one runs (and finds Go unchanged).
    expect(outcome(await syncAdvisories(deps(['Go'], captureLogs().logger)), 'Go').outcome).toBe('not_modified');
  });

  it('the maintenance task syncs with its own pool and the project HTTP stack', async () => {
    const task = advisorySync({ databaseUrl: db.url, baseUrl: server.url, ecosystems: ['PyPI'], allowPrivate: true }, captureLogs().logger);
    try {
      const outcomes = await task.run();
      expect(outcome(outcomes, 'PyPI').outcome).toBe('not_modified');
      expect(await source('PyPI')).toMatchObject({ state: 'ready', reason: null, advisories: PYPI });
    } finally {
      await task.close();
    }
  });

});
