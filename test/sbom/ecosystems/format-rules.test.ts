import { describe, expect, it } from 'vitest';
import { analyze } from '../../../src/sbom/analyze.js';
import { AnalysisError } from '../../../src/model/types.js';
import { fixtureSet } from './fixture-set.js';

/** Rules every ecosystem follows for lockfiles it cannot fully read, on fixtures shaped like what the tools write. */

const FIXTURES = new URL('./fixtures/', import.meta.url);

interface Doc {
  readonly properties: { name: string; value: string }[];
}
const property = (doc: Doc, name: string): string => doc.properties.find((p) => p.name === name)?.value ?? '';

describe('lockfiles an analysis cannot fully read', () => {
  it('a malformed lockfile beside good ones leaves the inventory partial, named with its line and column', async () => {
    const result = await analyze(fixtureSet(FIXTURES, 'malformed-beside-good'), 'cyclonedx');
    const problem = result.problems?.find((p) => p.path === 'tools/Cargo.lock');
    expect(problem).toMatchObject({ path: 'tools/Cargo.lock', line: 7 });
    expect(problem?.column).toEqual(expect.any(Number));
    const doc = JSON.parse(result.document) as Doc;
    expect(property(doc, 'service:completeness')).toBe('partial_manifest_inventory');
    expect(JSON.parse(property(doc, 'service:resolutions'))).toContainEqual({ manifest: 'tools/Cargo.lock', outcome: 'unparsable', detail: problem?.message });
    expect(property(doc, 'service:notice')).toContain('tools/Cargo.lock was not resolved (unparsable)');
  });

  it('a malformed npm lockfile beside a good one is a diagnostic with its line and column, and the document is partial', async () => {
    const good = JSON.stringify({ name: 'api', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'api', version: '1.0.0', dependencies: { ms: '^2.1.3' } }, 'node_modules/ms': { version: '2.1.3', resolved: 'https://registry.example.test/ms/-/ms-2.1.3.tgz' } } }, null, 2);
    // Cut short mid-object, as an interrupted write leaves it.
    const broken = '{\n  "name": "web",\n  "lockfileVersion": 3,\n  "packages": {\n    "": { "name": "web"';
    const result = await analyze(
      [
        { path: 'api/package.json', content: '{"name":"api","version":"1.0.0","dependencies":{"ms":"^2.1.3"}}' },
        { path: 'api/package-lock.json', content: good },
        { path: 'web/package-lock.json', content: broken },
      ],
      'cyclonedx',
    );
    const problem = result.problems?.find((p) => p.path === 'web/package-lock.json');
    expect(problem?.path).toBe('web/package-lock.json');
    expect(typeof problem?.line).toBe('number');
    expect(typeof problem?.column).toBe('number');
    const doc = JSON.parse(result.document) as Doc & { components: { name: string }[] };
    expect(doc.components.map((c) => c.name)).toContain('ms');
    expect(property(doc, 'service:completeness')).toBe('partial_manifest_inventory');
    expect(JSON.parse(property(doc, 'service:resolutions'))).toContainEqual(expect.objectContaining({ manifest: 'web/package-lock.json', outcome: 'unparsable' }));
  });

  it('format versions newer than the readers know are said and read as the newest known', async () => {
    const result = await analyze(fixtureSet(FIXTURES, 'future-versions'), 'cyclonedx');
    expect(result.problems).toEqual([]);
    const doc = JSON.parse(result.document) as Doc & { components: { name: string }[] };
    expect(doc.components.map((c) => c.name)).toEqual(expect.arrayContaining(['Newtonsoft.Json', 'heck', 'swift-argument-parser', 'ms', 'six']));
    const notice = property(doc, 'service:notice');
    expect(notice).toContain('Cargo.lock format version 5 is newer than this reader knows; it was read as version 4');
    expect(notice).toContain('Package.resolved format version 4 is newer than this reader knows; it was read as version 3');
    expect(notice).toContain('packages.lock.json format version 3 is newer than this reader knows; it was read as version 2');
    expect(notice).toContain('web/package-lock.json: package-lock.json format version 4 is newer than this reader knows; it was read as version 3');
    expect(notice).toContain('api/Pipfile.lock: Pipfile.lock format version 7 is newer than this reader knows; it was read as version 6');
  });

  it('pnpm and yarn berry lockfiles of a later format are said and read as the newest known', async () => {
    const pnpm = [
      "lockfileVersion: '10.0'",
      '',
      'importers:',
      '  .:',
      '    dependencies:',
      '      ms:',
      '        specifier: ^2.1.3',
      '        version: 2.1.3',
      '',
      'packages:',
      '  ms@2.1.3:',
      '    resolution: {integrity: sha512-6FlzubTLZG3J2a/NVCAleEhjzq5oxgHyaCU9yYXvcLsvoVaHJq/s5xXI6/XXP6tz7R9xAOtHnSO/tXtF3WRTlA==}',
      '',
      'snapshots:',
      '  ms@2.1.3: {}',
      '',
    ].join('\n');
    const berry = [
      '__metadata:',
      '  version: 11',
      '  cacheKey: 10c0',
      '',
      '"ms@npm:^2.1.3":',
      '  version: 2.1.3',
      '  resolution: "ms@npm:2.1.3"',
      '  checksum: 10c0/d924b57e7312b3b63ad21fc5b3dc0af5e78d61a1fc7cfb5457edaf26326bf62be5307cc87ffb6862ef1c2b33b0233cdb5d4f01c4c958cc0d660948b65a287a48',
      '  languageName: node',
      '  linkType: hard',
      '',
    ].join('\n');
    const manifest = '{"name":"app","version":"1.0.0","dependencies":{"ms":"^2.1.3"}}';
    const result = await analyze(
      [
        { path: 'a/package.json', content: manifest },
        { path: 'a/pnpm-lock.yaml', content: pnpm },
        { path: 'b/package.json', content: manifest },
        { path: 'b/yarn.lock', content: berry },
      ],
      'cyclonedx',
    );
    const doc = JSON.parse(result.document) as Doc & { components: { name: string; version?: string }[] };
    expect(doc.components.filter((c) => c.name === 'ms').map((c) => c.version)).toEqual(['2.1.3', '2.1.3']);
    const notice = property(doc, 'service:notice');
    expect(notice).toContain('a/pnpm-lock.yaml: pnpm-lock.yaml format version 10.0 is newer than this reader knows; it was read as version 9.0');
    expect(notice).toContain('b/yarn.lock: yarn.lock format version 11 is newer than this reader knows; it was read as version 10');
  });

  it('a version the format declares incompatible (uv’s version, Poetry’s major) is a diagnostic, not read', async () => {
    const failed = await analyze(fixtureSet(FIXTURES, 'incompatible-versions'), 'cyclonedx').catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(AnalysisError);
    expect((failed as AnalysisError).problems).toEqual([
      { path: 'svc/uv.lock', reason: 'unsupported_version', message: 'uv.lock format version 2 is not one this reader can read' },
      { path: 'tool/poetry.lock', reason: 'unsupported_version', message: 'poetry.lock format version 3.0 is not one this reader can read' },
    ]);
  });

  it('format version 0, or no entries, is a diagnostic, never an empty inventory', async () => {
    const zero = await analyze(fixtureSet(FIXTURES, 'version-zero'), 'cyclonedx').catch((error: unknown) => error);
    expect(zero).toBeInstanceOf(AnalysisError);
    expect((zero as AnalysisError).problems).toMatchObject([{ path: 'Cargo.lock', reason: 'malformed', message: 'version is not a lockfile format number' }]);
    const empty = await analyze([{ path: 'Cargo.lock', content: '# This file is automatically @generated by Cargo.\nversion = 4\n' }], 'cyclonedx').catch((error: unknown) => error);
    expect((empty as AnalysisError).problems).toMatchObject([{ path: 'Cargo.lock', message: 'no [[package]] entries: not a Cargo.lock' }]);
    const swift = await analyze([{ path: 'Package.resolved', content: '{\n  "pins" : [],\n  "version" : 0\n}\n' }], 'cyclonedx').catch((error: unknown) => error);
    expect((swift as AnalysisError).problems).toMatchObject([{ path: 'Package.resolved', reason: 'unsupported_version', message: 'version is not a Package.resolved format number' }]);
  });
});

describe('manifests of one folder', () => {
  it('are one project, named by the manifest that names it, with every ecosystem’s dependencies', async () => {
    const doc = JSON.parse((await analyze(fixtureSet(FIXTURES, 'one-folder-two-ecosystems'), 'cyclonedx')).document) as {
      metadata: { component: { name: string; version?: string; 'bom-ref': string } };
      components: { name: string; type: string; 'bom-ref': string }[];
      dependencies: { ref: string; dependsOn?: string[] }[];
    };
    expect(doc.metadata.component).toMatchObject({ name: 'storefront', version: '2.3.0' });
    // No second root for the Gemfile ("project" or the folder's name).
    expect(doc.components.filter((c) => c.type === 'application')).toEqual([]);
    const refs = new Map(doc.components.map((c) => [c['bom-ref'], c.name]));
    const own = doc.dependencies.find((d) => d.ref === doc.metadata.component['bom-ref']);
    expect((own?.dependsOn ?? []).map((r) => refs.get(r)).sort()).toEqual(['rack', 'stimulus']);
  });
});
