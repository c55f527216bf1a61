import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PackageURL } from 'packageurl-js';
import { analyze } from '../../../src/sbom/analyze.js';
import { detectFiles } from '../../../src/sbom/detect.js';
import { GraphBuilder } from '../../../src/ecosystems/shared/builder.js';
import { offlineEcosystems } from '../../../src/ecosystems/analysis.js';
import type { Ecosystem } from '../../../src/ecosystems/types.js';
import { buildApp } from '../../../src/http/app.js';
import { createLogger } from '../../../src/logger.js';
import { sbomRoutes } from '../../../src/routes/sbom.js';
import type { InputFile } from '../../../src/model/types.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { SMALL_NPM } from '../../helpers/fixtures.js';

/** A NuGet lockfile: JSON with a `dependencies` object, the shape npm detection once mistook. */
const NUGET_LOCK = JSON.stringify({
  version: 1,
  dependencies: { 'net8.0': { 'Newtonsoft.Json': { type: 'Direct', requested: '[13.0.3, )', resolved: '13.0.3', contentHash: 'x' } } },
});
const COMPOSER_JSON = JSON.stringify({ name: 'acme/app', require: { php: '>=8.1', 'monolog/monolog': '^3.0' } });
const PIPFILE_LOCK = JSON.stringify({ _meta: { hash: { sha256: 'x' } }, default: { requests: { version: '==2.32.3' } }, develop: {} });

/** A minimal second ecosystem: one line `name==version` per file named `toy.lock`. */
function toyEcosystem(): Ecosystem {
  return {
    id: 'pypi',
    label: 'Toy',
    metadata: null,
    claim: (file) => (file.path.endsWith('toy.lock') ? { kind: 'toy-lock', role: 'lockfile', by: 'name' } : null),
    async build(files) {
      const b = new GraphBuilder(files[0]?.path ?? 'toy.lock', 'pypi', (n) => n.toLowerCase());
      const root = b.root('', { name: 'toy-project', version: null });
      for (const line of (files[0]?.content ?? '').split('\n')) {
        const [name, version] = line.split('==');
        if (name && version) b.edge(root, b.add(name, { name, version, source: 'registry' }), 'prod');
      }
      return { inventory: b.finish({ kind: 'toy.lock', version: null, scopes: 'unknown' }), problems: [] };
    },
    purl: (o) => (o.version === null || o.source !== 'registry' ? null : new PackageURL('pypi', undefined, o.name.toLowerCase(), o.version, undefined, undefined).toString()),
  };
}

describe('ecosystems loaded with their first file', () => {
  it('claim files before they load, refuse to name a package before prepare(), and work after it', async () => {
    const cargo = offlineEcosystems().find((e) => e.id === 'cargo')!;
    expect(cargo.metadata).toBeNull();
    expect(cargo.claim({ path: 'Cargo.lock', content: 'version = 3\n' })).not.toBeNull();
    const occurrence = { ecosystem: 'cargo', name: 'serde', version: '1.0.0', source: 'registry' } as unknown as Parameters<Ecosystem['purl']>[0];
    expect(() => cargo.purl(occurrence)).toThrow(/before prepare/);
    await cargo.prepare?.();
    expect(cargo.purl(occurrence)).toBe('pkg:cargo/serde@1.0.0');
  });
});

describe('detection across ecosystems', () => {
  it('never takes another ecosystem’s JSON for an npm manifest', () => {
    const files: InputFile[] = [
      { path: 'src/App/packages.lock.json', content: NUGET_LOCK },
      { path: 'composer.json', content: COMPOSER_JSON },
      { path: 'Pipfile.lock', content: PIPFILE_LOCK },
      ...SMALL_NPM(),
    ];
    const detection = detectFiles(files, offlineEcosystems());
    const npm = [...detection.claims.entries()].find(([e]) => e.id === 'npm')?.[1] ?? [];
    expect(npm.map((f) => f.path).sort()).toEqual(['package-lock.json', 'package.json']);
    // packages.lock.json is NuGet's, by its name.
    const nuget = [...detection.claims.entries()].find(([e]) => e.id === 'nuget')?.[1] ?? [];
    expect(nuget.map((f) => f.path)).toEqual(['src/App/packages.lock.json']);
    // composer.json is PHP's, by its name.
    const php = [...detection.claims.entries()].find(([e]) => e.id === 'composer')?.[1] ?? [];
    expect(php.map((f) => f.path)).toEqual(['composer.json']);
    // Pipfile.lock is Python's, by its name.
    const pypi = [...detection.claims.entries()].find(([e]) => e.id === 'pypi')?.[1] ?? [];
    expect(pypi.map((f) => f.path)).toEqual(['Pipfile.lock']);
  });

  it('Composer and Bundler files go to PHP and Ruby alone, by name', () => {
    const files: InputFile[] = [
      { path: 'composer.json', content: COMPOSER_JSON },
      { path: 'composer.lock', content: JSON.stringify({ packages: [], 'packages-dev': [], dependencies: {} }) },
      { path: 'Gemfile', content: 'source "https://rubygems.org"\ngem "rack"\n' },
      { path: 'Gemfile.lock', content: 'GEM\n  remote: https://rubygems.org/\n  specs:\n    rack (3.0.9)\n' },
      { path: 'gems/widget.gemspec', content: 'Gem::Specification.new do |s|\n  s.name = "widget"\nend\n' },
      { path: 'other/Gemfile.lock', content: '{"lockfileVersion": 3, "packages": {}}' },
      ...SMALL_NPM(),
    ];
    const detection = detectFiles(files, offlineEcosystems());
    const claimed = (id: string) => ([...detection.claims.entries()].find(([e]) => e.id === id)?.[1] ?? []).map((f) => `${f.path}:${f.kind}`).sort();
    expect(claimed('npm')).toEqual(['package-lock.json:npm-lock', 'package.json:package-json']);
    expect(claimed('composer')).toEqual(['composer.json:composer-json', 'composer.lock:composer-lock']);
    // A Gemfile.lock is Bundler's whatever it holds (JSON there is a malformed lockfile, not npm's).
    expect(claimed('gem')).toEqual(['Gemfile.lock:gemfile-lock', 'Gemfile:gemfile', 'gems/widget.gemspec:gemspec', 'other/Gemfile.lock:gemfile-lock']);
  });

  it('a Gemfile.lock holding JSON fails as a malformed Ruby lockfile naming the file', async () => {
    const failure = await analyze([{ path: 'other/Gemfile.lock', content: '{"lockfileVersion": 3, "packages": {}}' }], 'text').catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'no_manifest_evidence', problems: [{ path: 'other/Gemfile.lock', reason: 'malformed', line: 1 }] });
  });

  it('lets a well-known name win over another ecosystem’s claim by content', () => {
    const byContent: Ecosystem = { ...toyEcosystem(), id: 'greedy', claim: () => ({ kind: 'any', role: 'lockfile', by: 'content' }) };
    const detection = detectFiles(SMALL_NPM(), [byContent, ...offlineEcosystems()]);
    expect([...detection.claims.keys()].map((e) => e.id)).toEqual(['npm']);
  });

  it('reads a NuGet lockfile as .NET, never as an npm manifest (it once ended in an internal error)', async () => {
    const result = await analyze([{ path: 'packages.lock.json', content: NUGET_LOCK }], 'cyclonedx');
    const doc = JSON.parse(result.document) as { components: { purl?: string }[] };
    expect(doc.components.length).toBeGreaterThan(0);
    expect(doc.components.every((c) => c.purl?.startsWith('pkg:nuget/') ?? true)).toBe(true);
  });

  it('names a recognised but malformed lockfile', async () => {
    const failure = await analyze([{ path: 'app/package-lock.json', content: '{"lockfileVersion": 3, "packages": ' }], 'text').catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'no_manifest_evidence', problems: [{ path: 'app/package-lock.json', reason: 'malformed' }] });
  });
});

describe('the shared graph builder', () => {
  it('keys occurrences by entry, resolves names through the identity key, and adds each edge once', () => {
    const b = new GraphBuilder('x.lock', 'pypi', (n) => n.toLowerCase().replace(/[-_.]+/g, '-'));
    const root = b.root('', { name: 'app', version: '1.0' });
    const a1 = b.add('a@1', { name: 'Zope.Interface', version: '1', source: 'registry' });
    const a2 = b.add('a@2', { name: 'zope-interface', version: '2', source: 'registry' });
    expect(b.add('a@1', { name: 'other', version: '9', source: 'registry' })).toBe(a1);
    expect(b.named('ZOPE_INTERFACE')).toEqual([a1, a2]);
    expect(b.resolve('zope.interface')).toBeNull();
    expect(b.resolve('zope.interface', (o) => o.version === '2')).toBe(a2);
    b.edge(root, a1, 'prod');
    b.edge(root, a1, 'dev');
    b.edge(a1, a1, 'prod');
    expect(root.dependencies).toEqual([{ ref: a1.ref, kind: 'prod' }]);
    expect(a1.dependencies).toEqual([]);
    const inventory = b.finish({ kind: 'x.lock', version: '1', scopes: 'graph' });
    expect(inventory.roots).toEqual([root.ref]);
    expect(inventory.lockfiles).toEqual([{ path: 'x.lock', kind: 'x.lock', version: '1', entries: 2 }]);
    // a2 is reached by no edge: development-only by the graph rule.
    expect([a1.dev, a2.dev]).toEqual([false, true]);
  });

  it('leaves scopes unknown where the file records none', () => {
    const b = new GraphBuilder('Cargo.lock', 'cargo');
    const root = b.root('', { name: 'app', version: null });
    const dep = b.add('d', { name: 'd', version: '1.0.0', source: 'registry' });
    b.edge(root, dep, 'prod');
    b.finish({ kind: 'Cargo.lock', version: '4', scopes: 'unknown' });
    expect([root.scopeKnown, dep.scopeKnown]).toEqual([true, false]);
  });
});

describe('a polyglot upload', () => {
  it('gives one document with every ecosystem’s components, purls, lockfiles and labels', async () => {
    const files: InputFile[] = [...SMALL_NPM(), { path: 'py/toy.lock', content: 'Requests==2.32.3\nidna==3.7\n' }];
    const ecosystems = [...offlineEcosystems(), toyEcosystem()];
    const cdx = JSON.parse((await analyze(files, 'cyclonedx', { ecosystems })).document) as {
      components: { name: string; purl?: string; scope?: string; properties?: { name: string; value: string }[] }[];
      properties: { name: string; value: string }[];
    };
    const requests = cdx.components.find((c) => c.name === 'Requests');
    expect(requests?.purl).toBe('pkg:pypi/requests@2.32.3');
    // The toy lockfile records no scope: the document states none rather than guessing.
    expect(requests?.scope).toBeUndefined();
    expect(requests?.properties).toContainEqual({ name: 'service:ecosystem', value: 'pypi' });
    expect(cdx.components.some((c) => c.purl?.startsWith('pkg:npm/') === true)).toBe(true);
    const lockfiles = JSON.parse(cdx.properties.find((p) => p.name === 'service:lockfiles')?.value ?? '[]') as { path: string }[];
    expect(lockfiles.map((l) => l.path).sort()).toEqual(['package-lock.json', 'py/toy.lock']);
    const text = (await analyze(files, 'text', { ecosystems })).document;
    expect(text).toMatch(/^Toy +Requests +2\.32\.3 +unknown +unknown +Requests$/m);
    expect(text).toMatch(/^npm +/m);
    const spdx = JSON.parse((await analyze(files, 'spdx', { ecosystems })).document) as { packages: { name: string; comment: string }[] };
    expect(spdx.packages.find((p) => p.name === 'idna')?.comment).toMatch(/ecosystem: pypi/);
  });
});

describe('diagnostics over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ deps: { v1Routes: [] } });
  });
  afterAll(async () => t.close());

  it('lists, per uploaded file, what was wrong in the 422 of the synchronous endpoint', async () => {
    const app = await buildApp({
      config: t.config,
      database: t.database,
      logger: createLogger('silent'),
      v1Routes: [sbomRoutes({ config: t.config, analyze, analysis: {} })],
    });
    try {
      const token = await t.token('diagnostics');
      const res = await app.inject({
        method: 'POST',
        url: '/v1/experimental/sbom',
        headers: { authorization: `Bearer ${token}` },
        payload: { format: 'text', files: [{ path: 'src/App/notes.txt', content: 'hello' }, { path: 'package-lock.json', content: '{' }] },
      });
      expect(res.statusCode).toBe(422);
      const body = res.json<{ failure_code: string; detail: string; diagnostics: unknown[] }>();
      expect(body).toMatchObject({ code: 'ANALYSIS_FAILED', failure_code: 'no_manifest_evidence', detail: 'The analysis failed; failure_code tells why.' });
      expect(body.diagnostics).toMatchObject([
        { path: 'src/App/notes.txt', reason: 'not_recognised', line: null, column: null, package: null },
        // Where the JSON ends early: its parser's position.
        { path: 'package-lock.json', reason: 'malformed', line: 1, column: 2, package: null },
      ]);
      expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+|node_modules/);
    } finally {
      await app.close();
    }
  });
});
