import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryAnalysis } from '../../src/sbom/registry-analysis.js';
import { analyze } from '../../src/sbom/analyze.js';
import { startFixtureRegistry, type FixtureRegistry } from '../helpers/registry.js';

let registry: FixtureRegistry;

beforeAll(async () => {
  registry = await startFixtureRegistry({ packages: { right: { versions: { '2.0.0': { license: 'MIT' } } } } });
});
afterAll(() => registry.close());

type Json = Record<string, unknown>;

function evidence(document: string): Record<string, string> {
  return Object.fromEntries(((JSON.parse(document) as Json)['properties'] as { name: string; value: string }[]).map((p) => [p.name, p.value]));
}

describe('document evidence names caller facts only', () => {
  it('never puts a registry URL or a library message in service:resolutions or service:notice', async () => {
    const { resolver } = await registryAnalysis({ cache: null, resolutionTimeoutMs: 10_000, npmOptions: await registry.npmOptions() });
    const files = [
      { path: 'ok/package.json', content: JSON.stringify({ name: 'ok', dependencies: { right: '2.0.0' } }) },
      { path: 'range/package.json', content: JSON.stringify({ name: 'range', dependencies: { right: '^99.0.0' } }) },
      { path: 'missing/package.json', content: JSON.stringify({ name: 'missing', dependencies: { nowhere: '1.0.0' } }) },
      { path: 'broken/yarn.lock', content: '# yarn lockfile v1\n\n"left@^1":\n  version "1.0.0\n  resolved: [unclosed\n' },
      { path: 'broken/package-lock.json', content: '{"lockfileVersion": 3, "packages": ' },
    ];
    const result = await analyze(files, 'cyclonedx', { resolver });
    const props = evidence(result.document);
    const resolutions = JSON.parse(props['service:resolutions'] ?? '[]') as { manifest: string; outcome: string; detail: string | null }[];
    const failed = Object.fromEntries(resolutions.filter((r) => r.outcome === 'resolution_failed').map((r) => [r.manifest, r.detail]));
    expect(failed).toEqual({
      'range/package.json': 'no published version matches right@^99.0.0',
      'missing/package.json': 'nowhere@1.0.0 is not in the registry',
    });
    for (const name of ['service:resolutions', 'service:notice']) {
      const value = props[name] ?? '';
      expect(value, name).not.toContain('://');
      expect(value, name).not.toContain('127.0.0.1');
      expect(value, name).not.toMatch(/Not Found - GET|Unexpected token|SyntaxError|at position|No matching version found/);
    }
  });
});
