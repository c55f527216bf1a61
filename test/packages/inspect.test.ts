import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, ensureAccount } from '../../src/accounts/tokens.js';
import type { PackageResponseType } from '../../src/packages/schemas.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { startInspectionRegistries, type InspectionRegistries } from './registries.js';

/**
 * `GET /v1/packages/{target}` against fixture registries of every ecosystem with package
 * targets: a recorded npm packument (a deprecated package), and real-shaped documents of crates.io
 * (a yanked version), the Go module proxy (a version retracted by the latest go.mod), NuGet (an
 * unlisted version), PyPI, Maven, RubyGems, Packagist, pub and Hex.
 */

const HAR_VALIDATOR = JSON.parse(readFileSync(new URL('../fixtures/packages/har-validator.packument.json', import.meta.url), 'utf8')) as unknown;

let registries: InspectionRegistries;
let h: JobsHarness;
let token: string;

beforeAll(async () => {
  registries = await startInspectionRegistries();
  h = await startJobsHarness(
    { PACKAGE_REGISTRIES: JSON.stringify(registries.registries), RESOLUTION_TIMEOUT_MS: '3000' },
    { rawPackument: (name) => (name === 'har-validator' || name === '@demo/har-validator' ? HAR_VALIDATOR : undefined) },
  );
  token = await h.token('inspector');
}, 120_000);

afterAll(async () => {
  await h.close();
  await registries.close();
});

const get = (target: string, query = '') =>
  h.app.inject({ method: 'GET', url: `/v1/packages/${encodeURIComponent(target)}${query}`, headers: { authorization: `Bearer ${token}` } });

async function inspect(target: string, query = ''): Promise<PackageResponseType> {
  const res = await get(target, query);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  return res.json<PackageResponseType>();
}

describe('GET /v1/packages/{target}', () => {
  it('answers a deprecated npm version from the recorded packument: facts, dependencies, versions newest first', async () => {
    const answer = await inspect('npm:har-validator@5.1.3');
    expect(answer).toMatchObject({ requested_target: 'npm:har-validator@5.1.3', canonical_target: 'npm:har-validator@5.1.3', registry: 'npm', package_name: 'har-validator' });
    expect(answer.release).toMatchObject({
      version: '5.1.3',
      deprecated: true,
      deprecated_reason: 'this library is no longer supported',
      yanked: false,
      retracted: false,
      license: 'MIT',
      latest_version: '5.1.5',
      versions_count: 3,
      repository_url: 'https://github.com/ahmadnassri/node-har-validator.git',
      install_scripts: {},
      exports: null,
    });
    // The packument's `time` of each version, as ISO 8601.
    const time = (HAR_VALIDATOR as { time: Record<string, string> }).time;
    expect(answer.release?.published_at).toBe(new Date(time['5.1.3'] ?? '').toISOString());
    expect(answer.release?.latest_published_at).toBe(new Date(time['5.1.5'] ?? '').toISOString());
    expect(answer.dependencies).toContainEqual({ name: 'ajv', requirement: expect.any(String) as string, kind: 'dependencies', optional: false });
    expect(answer.dependencies?.some((d) => d.kind === 'devDependencies')).toBe(true);
    expect(answer.versions?.map((v) => v.version)).toEqual(['5.1.5', '5.1.3', '5.1.0']);
    expect(answer.versions?.every((v) => v.deprecated && !v.yanked)).toBe(true);
    expect(answer.versions_truncated).toBe(false);
  });

  it('answers the latest version when the target names none, and only the members `fields` names', async () => {
    const answer = await inspect('npm:har-validator', '?fields=release,canonical_target');
    expect(answer.canonical_target).toBe('npm:har-validator@5.1.5');
    expect(answer.release?.version).toBe('5.1.5');
    expect(answer).not.toHaveProperty('dependencies');
    expect(answer).not.toHaveProperty('versions');
    expect(answer).not.toHaveProperty('vulnerabilities');
  });

  it('takes a scoped npm name whose slash is percent-encoded in the one path segment', async () => {
    const answer = await inspect('npm:@demo/har-validator@5.1.0', '?fields=release');
    expect(answer).toMatchObject({ canonical_target: 'npm:@demo/har-validator@5.1.0', package_name: '@demo/har-validator', release: { license: 'ISC' } });
  });

  it('bounds the versions list and says it is truncated', async () => {
    const answer = await inspect('crates:demo', '?fields=versions&versions_limit=2');
    expect(answer.versions?.map((v) => v.version)).toEqual(['1.2.0', '1.1.0']);
    expect(answer.versions_truncated).toBe(true);
  });

  it('refuses an unknown member of fields, and a target that is no package', async () => {
    const unknown = await get('npm:har-validator', '?fields=release,everything');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.headers['content-type']).toContain('application/problem+json');
    expect(unknown.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await get('github:owner/repo')).json()).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it('answers 404 for a missing version, naming the versions around it', async () => {
    const res = await get('npm:har-validator@5.1.4');
    expect(res.statusCode).toBe(404);
    const problem = res.json<{ code: string; detail: string; available_versions: string[] }>();
    expect(problem.code).toBe('PACKAGE_NOT_FOUND');
    expect(problem.detail).toContain('5.1.3 (below)');
    expect(problem.detail).toContain('5.1.5 (above)');
    expect(problem.available_versions).toEqual(['5.1.0', '5.1.3', '5.1.5']);
    expect((await get('crates:nothing-here')).json()).toMatchObject({ status: 404, code: 'PACKAGE_NOT_FOUND' });
  });

  it('answers a yanked crate with its yank message and its dependencies by kind', async () => {
    const answer = await inspect('crates:demo@1.1.0');
    expect(answer.release).toMatchObject({ version: '1.1.0', yanked: true, yanked_as: 'yanked', yanked_reason: 'miscompiles on 32-bit targets', license: 'MIT OR Apache-2.0', latest_version: '1.2.0', repository_url: 'https://github.com/owner/demo' });
    expect(answer.release?.install_scripts).toBeNull();
    expect(answer.dependencies).toEqual([
      { name: 'serde', requirement: '^1.0.190', kind: 'normal', optional: false },
      { name: 'cc', requirement: '^1.0', kind: 'build', optional: true },
      { name: 'proptest', requirement: '^1', kind: 'dev', optional: false },
    ]);
    expect(answer.versions?.find((v) => v.version === '1.1.0')).toMatchObject({ yanked: true, published_at: '2023-09-15T12:30:00.000Z' });
  });

  it('answers a Go version its module retracted, with the rationale of the latest go.mod', async () => {
    const answer = await inspect('go:example.test/demo@v1.1.0');
    expect(answer.release).toMatchObject({ version: 'v1.1.0', retracted: true, retracted_reason: 'Published with a data race in the cache.', latest_version: 'v1.2.0', license: null, published_at: '2023-09-15T12:30:00.000Z' });
    expect(answer.dependencies).toEqual([{ name: 'golang.org/x/text', requirement: 'v0.13.0', kind: 'require', optional: false }]);
    expect(answer.versions?.map((v) => [v.version, v.yanked])).toEqual([['v1.2.0', false], ['v1.1.0', true], ['v1.0.0', false]]);
    const latest = await inspect('go:example.test/demo');
    expect(latest.release).toMatchObject({ version: 'v1.2.0', retracted: false });
    expect(latest.dependencies).toContainEqual({ name: 'golang.org/x/sys', requirement: 'v0.17.0', kind: 'require (indirect)', optional: false });
  });

  it('answers an unlisted NuGet version as yanked (unlisted), never with the placeholder date', async () => {
    const answer = await inspect('nuget:demo.lib@1.1.0');
    expect(answer.release).toMatchObject({ version: '1.1.0', yanked: true, yanked_as: 'unlisted', published_at: null, license: 'MIT', latest_version: '1.2.0' });
    expect(answer.dependencies).toEqual([{ name: 'Newtonsoft.Json', requirement: '[13.0.1, )', kind: 'net8.0', optional: false }]);
    expect(answer.versions?.map((v) => [v.version, v.yanked])).toEqual([['1.2.0', false], ['1.1.0', true], ['1.0.0', false]]);
  });

  it.each([
    ['pypi:demo-pkg@1.2.0', { license: 'MIT', supplier: 'Alice <alice@example.org>', repository_url: 'https://github.com/owner/demo-pkg' }, [{ name: 'requests', requirement: '>=2.28', kind: 'requires_dist', optional: false }, { name: 'rich', requirement: '>=13; extra == "cli"', kind: 'extra:cli', optional: true }]],
    ['maven:org.demo:demo@1.2.0', { license: 'Apache-2.0', homepage: 'https://example.org/demo', supplier: 'Alice' }, [{ name: 'com.fasterxml.jackson.core:jackson-databind', requirement: '2.16.1', kind: 'compile', optional: false }, { name: 'org.slf4j:slf4j-api', requirement: '2.0.12', kind: 'compile', optional: true }, { name: 'org.junit.jupiter:junit-jupiter', requirement: '5.10.2', kind: 'test', optional: false }]],
    ['rubygems:demo@1.2.0', { license: 'MIT', supplier: 'Alice', published_at: '2024-02-20T08:45:00.000Z' }, [{ name: 'rack', requirement: '>= 2.2, < 4', kind: 'runtime', optional: false }, { name: 'rspec', requirement: '~> 3.12', kind: 'development', optional: false }]],
    ['packagist:test/demo@v1.2.0', { license: 'MIT', repository_url: 'https://github.com/test/demo.git', latest_version: 'v1.2.0' }, [{ name: 'php', requirement: '>=8.1', kind: 'require', optional: false }, { name: 'psr/log', requirement: '^3.0', kind: 'require', optional: false }, { name: 'phpunit/phpunit', requirement: '^10.5', kind: 'require-dev', optional: false }]],
    ['pub:demo@1.2.0', { license: 'bsd-3-clause', supplier: 'example.dev', retracted: false }, [{ name: 'http', requirement: '^1.1.0', kind: 'dependencies', optional: false }, { name: 'test', requirement: '^1.24.0', kind: 'dev_dependencies', optional: false }]],
    ['hex:demo@1.2.0', { license: 'Apache-2.0', repository_url: 'https://github.com/owner/demo', yanked: false }, [{ name: 'jason', requirement: '~> 1.4', kind: 'requirements', optional: false }, { name: 'plug', requirement: '~> 1.14', kind: 'requirements', optional: true }]],
  ])('answers %s from its registry\'s documents', async (target, release, dependencies) => {
    const answer = await inspect(target);
    expect(answer.release).toMatchObject({ ...release, versions_count: expect.any(Number) as number });
    expect(answer.dependencies).toEqual(dependencies);
    expect(answer.versions?.[0]?.version).toBe(answer.release?.latest_version);
  });

  it('marks the set-apart versions of PyPI, pub and Hex in the versions list', async () => {
    const yanked = async (target: string) => (await inspect(target, '?fields=versions')).versions?.filter((v) => v.yanked).map((v) => v.version);
    expect(await yanked('pypi:demo-pkg')).toEqual(['1.1.0']);
    expect(await yanked('pub:demo')).toEqual(['1.1.0']);
    expect(await yanked('hex:demo')).toEqual(['1.1.0']);
    const retired = await inspect('hex:demo@1.1.0', '?fields=release');
    expect(retired.release).toMatchObject({ yanked: true, yanked_as: 'retired', yanked_reason: 'security: Use 1.2.0 or later' });
  });

  it('says why the vulnerability list is empty when advisories are off', async () => {
    const answer = await inspect('crates:demo@1.2.0', '?fields=vulnerabilities');
    expect(answer.vulnerabilities).toEqual([]);
    expect(answer.vulnerabilities_note).toContain('Advisories are off');
    expect(answer.advisories).toBeNull();
  });

  it('answers 502 naming the registry when it fails, and 504 when it does not answer in time', async () => {
    const failed = await get('crates:broken');
    expect(failed.statusCode).toBe(502);
    expect(failed.json()).toMatchObject({ code: 'REGISTRY_UNAVAILABLE' });
    expect(failed.json<{ detail: string }>().detail).toContain('crates registry');
    const slow = await get('crates:slow');
    expect(slow.statusCode).toBe(504);
    expect(slow.json()).toMatchObject({ code: 'TIMEOUT' });
  });

  it('keeps registry answers while they are fresh: a second inspection asks the registry nothing', async () => {
    await inspect('hex:demo@1.2.0');
    const before = registries.requests.length;
    const again = await inspect('hex:demo@1.2.0');
    expect(registries.requests.length).toBe(before);
    expect(again.release?.version).toBe('1.2.0');
  });

  it('requires the read capability', async () => {
    const account = await ensureAccount(h.database.db, 'sbom-only', { capabilities: ['sbom'] });
    const { token: other } = await createToken(h.database.db, account);
    const res = await h.app.inject({ method: 'GET', url: `/v1/packages/${encodeURIComponent('crates:demo')}`, headers: { authorization: `Bearer ${other}` } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('is the MCP tool inspect_package, with the same inputs', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'inspect_package', arguments: { target: 'crates:demo@1.1.0', fields: 'release' } } },
    });
    expect(res.statusCode).toBe(200);
    const result = res.json<{ result: { structuredContent: PackageResponseType; isError?: boolean } }>().result;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ canonical_target: 'crates:demo@1.1.0', release: { yanked: true } });
    expect(result.structuredContent).not.toHaveProperty('dependencies');
  });
});
