import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importAdvisoryPaths } from '../../src/advisories/import.js';
import { AdvisoryStore } from '../../src/advisories/store.js';
import type { ChangelogResponseType, PackageResponseType, UpgradeReviewResponseType } from '../../src/packages/schemas.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import type { RunningWorkers } from '../../src/processes/workers.js';
import { packageTarball } from '../helpers/tarball.js';

/**
 * `POST /v1/packages/upgrade-review` on the npm fixture registry: `demo-template` 1.0.0 → 2.0.0
 * adds a postinstall script and a dependency, drops an export and a file, changes the license,
 * and fixes an advisory imported into the test database (with OSV's real lodash record beside
 * it). Both versions' files are prepared by workers, as for compare.
 */

const V1_FILES = { 'package.json': '{"name":"demo-template","version":"1.0.0"}\n', 'index.js': 'module.exports = (t) => eval(t);\n', 'legacy.js': 'module.exports = 1;\n', 'README.md': '# demo-template\n' };
const CHANGELOG = [
  '# Changelog',
  '',
  '## [2.0.0] - 2026-11-01',
  '### Changed',
  '- BREAKING: `demo-template/legacy` is gone; templates are strings.',
  '',
  '## [1.0.0] - 2026-10-01',
  '- First release.',
  '',
].join('\n');
const V2_FILES = { 'package.json': '{"name":"demo-template","version":"2.0.0"}\n', 'index.js': 'module.exports = (t) => String(t);\n', 'install.js': 'console.log("setup");\n', 'README.md': '# demo-template\n', 'CHANGELOG.md': CHANGELOG };

let h: JobsHarness;
let workers: RunningWorkers;
let token: string;

beforeAll(async () => {
  h = await startJobsHarness(
    { ADVISORY_DB_URL: 'off' },
    {
      packages: {
        'demo-template': {
          versions: {
            '1.0.0': {
              license: 'MIT',
              exports: { '.': './index.js', './legacy': './legacy.js' },
              dependencies: { 'left-pad': '^1.3.0' },
              scripts: { test: 'node test.js' },
              _tarball: await packageTarball(V1_FILES),
            },
            '2.0.0': {
              license: 'Apache-2.0',
              exports: { '.': './index.js' },
              dependencies: { 'left-pad': '^1.3.0', 'right-pad': '^1.0.1' },
              scripts: { test: 'node test.js', postinstall: 'node install.js' },
              _tarball: await packageTarball(V2_FILES),
            },
          },
        },
        lodash: { versions: { '4.17.20': { license: 'MIT' }, '4.17.21': { license: 'MIT' } } },
      },
    },
  );
  await importAdvisoryPaths(new AdvisoryStore(h.database.db), [new URL('../fixtures/packages/advisories/npm', import.meta.url).pathname]);
  workers = await h.startWorkers();
  token = await h.token('reviewer');
}, 120_000);

afterAll(async () => {
  await workers.close();
  await h.close();
});

const auth = () => ({ authorization: `Bearer ${token}` });

const review = (body: Record<string, unknown>) => h.app.inject({ method: 'POST', url: '/v1/packages/upgrade-review', headers: auth(), payload: body });

describe('package vulnerabilities and the upgrade review', () => {
  it('matches the imported advisories against one version, with their fixed versions', async () => {
    const res = await h.app.inject({ method: 'GET', url: `/v1/packages/${encodeURIComponent('npm:lodash@4.17.20')}?fields=vulnerabilities`, headers: auth() });
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json<PackageResponseType>();
    expect(answer.vulnerabilities).toEqual([
      expect.objectContaining({ id: 'GHSA-35jh-r3h4-6jhm', aliases: ['CVE-2021-23337'], summary: 'Command Injection in lodash', severity: 'high', fixed_versions: ['4.17.21'] }),
    ]);
    expect(answer.vulnerabilities_note).toBeNull();
    expect(answer.advisories).toMatchObject({ ecosystem: 'npm', advisories: 2 });
    const fixed = await h.app.inject({ method: 'GET', url: `/v1/packages/${encodeURIComponent('npm:lodash@4.17.21')}?fields=vulnerabilities`, headers: auth() });
    expect(fixed.json<PackageResponseType>().vulnerabilities).toEqual([]);
  });

  it('reviews an upgrade that adds an install script and fixes an advisory: files, sizes, dependencies, license, breaking hints', async () => {
    const res = await review({ target: 'npm:demo-template@1.0.0', to: '2.0.0', wait_timeout_ms: 60_000 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const r = res.json<UpgradeReviewResponseType>();
    expect(r.from).toMatchObject({ canonical_target: 'npm:demo-template@1.0.0', version: '1.0.0', license: 'MIT' });
    expect(r.to).toMatchObject({ canonical_target: 'npm:demo-template@2.0.0', version: '2.0.0', license: 'Apache-2.0' });
    expect(r.vulnerabilities.fixed.map((v) => [v.id, v.fixed_versions])).toEqual([['x_pkgscope-test-0001', ['2.0.0']]]);
    expect(r.vulnerabilities.introduced).toEqual([]);
    expect(r.vulnerabilities.remaining).toEqual([]);
    expect(r.install_scripts).toEqual({ added: { postinstall: 'node install.js' }, removed: {}, changed: {} });
    expect(r.dependencies).toEqual({ added: [{ name: 'right-pad', requirement: '^1.0.1', kind: 'dependencies', optional: false }], removed: [], changed: [] });
    expect(r.license).toEqual({ from: 'MIT', to: 'Apache-2.0', changed: true });
    expect(r.breaking.map((b) => b.kind).sort()).toEqual(['changelog', 'major_bump', 'removed_export']);
    expect(r.breaking.find((b) => b.kind === 'removed_export')?.detail).toContain('./legacy');
    const bytes = (files: Record<string, string>, paths: string[]) => paths.reduce((n, p) => n + Buffer.byteLength(files[p] ?? ''), 0);
    expect(r.files_note).toBeNull();
    expect(r.files).toMatchObject({
      added: { count: 2, bytes: bytes(V2_FILES, ['install.js', 'CHANGELOG.md']) },
      removed: { count: 1, bytes: bytes(V1_FILES, ['legacy.js']) },
      changed: { count: 2, bytes_before: bytes(V1_FILES, ['package.json', 'index.js']), bytes_after: bytes(V2_FILES, ['package.json', 'index.js']) },
      unchanged: 1,
      compare: { base: 'npm:demo-template@1.0.0', head: 'npm:demo-template@2.0.0' },
    });
    expect(r.size).toEqual({
      before: { count: 4, bytes: bytes(V1_FILES, Object.keys(V1_FILES)) },
      after: { count: 5, bytes: bytes(V2_FILES, Object.keys(V2_FILES)) },
    });
    // The entries after 1.0.0 up to 2.0.0, from the new version's own CHANGELOG.md.
    expect(r.changelog).toEqual({
      entries: [{ version: '2.0.0', date: '2026-11-01', text: '### Changed\n- BREAKING: `demo-template/legacy` is gone; templates are strings.', breaking: true }],
      coverage: { state: 'complete', reason: null, versions_without_entry: [] },
    });
  });

  it('answers the registry facts at once when the files are not prepared yet, saying why files are missing', async () => {
    const res = await review({ target: 'npm:lodash@4.17.20', to: '4.17.21' });
    expect(res.statusCode, res.body).toBe(200);
    const r = res.json<UpgradeReviewResponseType>();
    expect(r.vulnerabilities.fixed.map((v) => v.id)).toEqual(['GHSA-35jh-r3h4-6jhm']);
    expect(r.breaking).toEqual([]);
    expect(r.install_scripts).toEqual({ added: {}, removed: {}, changed: {} });
    expect(r.files).toBeNull();
    expect(r.size).toBeNull();
    expect(typeof r.files_note).toBe('string');
  });

  it('answers 404 naming the versions around a version that does not exist', async () => {
    const res = await review({ target: 'npm:demo-template@1.0.0', to: '1.5.0' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'PACKAGE_NOT_FOUND', available_versions: ['1.0.0', '2.0.0'] });
    expect(res.json<{ detail: string }>().detail).toContain('1.0.0 (below), 2.0.0 (above)');
    const unversioned = await review({ target: 'npm:demo-template', to: '2.0.0' });
    expect(unversioned.statusCode).toBe(400);
  });

  it('answers the changelog route from the version\'s own changelog file, and says which versions have no entry', async () => {
    const url = (target: string) => `/v1/packages/${encodeURIComponent(target)}/changelog?wait_timeout_ms=60000`;
    const res = await h.app.inject({ method: 'GET', url: url('npm:demo-template@2.0.0'), headers: auth() });
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json<ChangelogResponseType>();
    expect(answer).toMatchObject({
      canonical_target: 'npm:demo-template@2.0.0',
      from: '1.0.0',
      to: '2.0.0',
      file: { path: 'CHANGELOG.md', read: { target: 'npm:demo-template@2.0.0', path: 'CHANGELOG.md' } },
      coverage: { state: 'complete', reason: null, versions_without_entry: [] },
    });
    expect(answer.entries.map((e) => [e.version, e.date, e.breaking])).toEqual([['2.0.0', '2026-11-01', true]]);
    // 1.0.0 ships no changelog: no entries, and its version is named as having none.
    const first = await h.app.inject({ method: 'GET', url: url('npm:demo-template@1.0.0'), headers: auth() });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json<ChangelogResponseType>()).toMatchObject({ from: null, to: '1.0.0', file: null, entries: [], coverage: { state: 'none', versions_without_entry: ['1.0.0'] } });
    expect(first.json<ChangelogResponseType>().coverage.reason).toContain('ships no CHANGELOG');
  });

  it('is the MCP tool upgrade_review, with the same inputs', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...auth(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'upgrade_review', arguments: { target: 'npm:lodash@4.17.20', to: '4.17.21' } } },
    });
    const result = res.json<{ result: { structuredContent: UpgradeReviewResponseType } }>().result;
    expect(result.structuredContent.vulnerabilities.fixed.map((v) => v.id)).toEqual(['GHSA-35jh-r3h4-6jhm']);
    const changelog = await h.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...auth(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'package_changelog', arguments: { target: 'npm:demo-template', from: '1.0.0' } } },
    });
    const entries = changelog.json<{ result: { structuredContent: ChangelogResponseType } }>().result.structuredContent;
    expect(entries).toMatchObject({ from: '1.0.0', to: '2.0.0', file: { path: 'CHANGELOG.md' } });
    expect(entries.entries.map((e) => e.version)).toEqual(['2.0.0']);
  });
});
