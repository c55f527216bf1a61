import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composerRange } from '../../src/ecosystems/composer/source.js';
import { elixirRange } from '../../src/ecosystems/hex/source.js';
import { compareNugetVersions, highestInNugetRange } from '../../src/ecosystems/nuget/source.js';
import { parseTarget } from '../../src/inventory/targets.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { expectArchiveListing, expectProblem, registriesAt, startRegistryFixture } from '../helpers/package-targets.js';
import { makeTar, makeTarball } from '../helpers/tarball.js';
import { makeZip } from '../helpers/zip.js';

/**
 * Package targets of Go, Maven, RubyGems, NuGet, Packagist, pub and Hex against one fixture
 * server speaking each registry's protocol under its own path (`/go`, `/maven`, …), with archives
 * built here in each registry's real layout.
 */

const ODD = 'odd name+#1';
const SHA = '0123456789abcdef0123456789abcdef01234567';

/** Each registry's package tree: its own files, a test file by its conventions, and a file with an odd name. */
const TREES = {
  go: { 'go.mod': 'module example.test/demo\n', 'demo.go': 'package demo\n', 'demo_test.go': 'package demo\n', [`${ODD}.go`]: 'package demo\n' },
  maven: { 'org/demo/Demo.java': 'class Demo {}\n', 'src/test/java/DemoTest.java': 'class DemoTest {}\n', [`org/demo/${ODD}.java`]: 'class Odd {}\n', 'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\n' },
  rubygems: { 'lib/demo.rb': 'module Demo; end\n', 'spec/demo_spec.rb': 'describe Demo\n', [`lib/${ODD}.rb`]: 'ODD = 1\n', 'README.md': '# demo gem\n' },
  nuget: { 'demo.lib.nuspec': '<package/>\n', 'lib/net8.0/Demo.xml': '<doc/>\n', 'tests/DemoTests.cs': 'class DemoTests {}\n', [`content/${ODD}.txt`]: 'odd\n' },
  packagist: { 'composer.json': '{"name":"test/demo"}\n', 'src/Demo.php': '<?php class Demo {}\n', 'tests/DemoTest.php': '<?php class DemoTest {}\n', [`src/${ODD}.php`]: '<?php\n' },
  pub: { 'pubspec.yaml': 'name: demo\n', 'lib/demo.dart': 'void main() {}\n', 'test/demo_test.dart': 'void main() {}\n', [`lib/${ODD}.dart`]: 'const odd = 1;\n' },
  hex: { 'mix.exs': 'defmodule Demo.MixProject do end\n', 'lib/demo.ex': 'defmodule Demo do end\n', 'test/demo_test.exs': 'defmodule DemoTest do end\n', [`lib/${ODD}.ex`]: ':odd\n' },
} as const;

const GEM_METADATA = '--- !ruby/object:Gem::Specification\nname: demo\nversion: !ruby/object:Gem::Version\n  version: 1.2.0\n';

type Handler = (path: string, base: string) => { status?: number; type?: string; body: string | Buffer } | null;

const json = (doc: unknown) => ({ type: 'application/json', body: JSON.stringify(doc) });
const prefixed = (files: Record<string, string>, prefix: string) => Object.fromEntries(Object.entries(files).map(([p, c]) => [`${prefix}${p}`, c]));
const tarOf = (files: Record<string, string | Buffer>) => makeTar(Object.entries(files).map(([name, content]) => ({ name, content })));
const tgzOf = (files: Record<string, string | Buffer>) => makeTarball(Object.entries(files).map(([name, content]) => ({ name, content })));

let fixture: Awaited<ReturnType<typeof startRegistryFixture>>;
let h: JobsHarness;
let token: string;
const client = inventoryClient(
  () => h.app,
  () => token,
);
const { listOk } = client;

/** The package name each registry's metadata request names (the error cases are keyed by it). */
const NAME_OF: Record<string, RegExp> = {
  go: /^\/go\/example\.test\/([^/@]+)\/@(?:v\/list|latest)$/,
  maven: /^\/maven\/org\/demo\/([^/]+)\/maven-metadata\.xml$/,
  rubygems: /^\/rubygems\/api\/v1\/versions\/([^/]+)\.json$/,
  nuget: /^\/nuget\/flat\/([^/]+)\/index\.json$/,
  packagist: /^\/packagist\/p2\/test\/([^/]+)\.json$/,
  pub: /^\/pub\/api\/packages\/([^/]+)$/,
  hex: /^\/hex\/api\/packages\/([^/]+)$/,
};

beforeAll(async () => {
  const routes: Handler[] = [];
  const files = new Map<string, Buffer>();

  // Go: the module proxy, a module zip under `<module>@<version>/`, an Origin in .info.
  files.set('/go/example.test/demo/@v/v1.2.0.zip', await makeZip(prefixed(TREES.go, 'example.test/demo@v1.2.0/')));
  files.set('/go/example.test/demo/@v/v1.0.0.zip', await makeZip({ 'example.test/demo@v1.0.0/demo.go': 'old\n', 'elsewhere/evil.go': 'outside\n' }));
  files.set('/go/example.test/demo/@v/v0.0.0-20240101000000-abcdefabcdef.zip', await makeZip({ 'example.test/demo@v0.0.0-20240101000000-abcdefabcdef/demo.go': 'pseudo\n' }));
  routes.push((path) => {
    if (path === '/go/example.test/demo/@v/list') return { type: 'text/plain', body: 'v1.0.0\nv1.2.0\nv1.3.0-rc.1\n' };
    if (path === '/go/example.test/garbled/@v/list') return { type: 'text/plain', body: 'not a version\n' };
    if (path === '/go/example.test/garbled/@latest') return { type: 'application/json', body: '{"Version": ' };
    const info = /^\/go\/example\.test\/demo\/@v\/(v[^/]+)\.info$/.exec(path);
    if (info?.[1] !== undefined && (['v1.0.0', 'v1.2.0', 'v1.3.0-rc.1'].includes(info[1]) || info[1].startsWith('v0.0.0-2024'))) {
      return json({ Version: info[1], Time: '2024-01-01T00:00:00Z', Origin: { VCS: 'git', URL: 'https://github.com/owner/demo', Hash: SHA } });
    }
    return null;
  });

  // Maven: artifact metadata, a POM with <scm>, a sources jar for 1.2.0 and only the jar for 1.0.
  files.set('/maven/org/demo/demo/1.2.0/demo-1.2.0-sources.jar', await makeZip(TREES.maven));
  files.set('/maven/org/demo/demo/1.0/demo-1.0.jar', await makeZip({ 'org/demo/Demo.class': 'cafebabe', 'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\n' }));
  routes.push((path) => {
    if (path === '/maven/org/demo/demo/maven-metadata.xml') {
      return { type: 'application/xml', body: '<metadata><groupId>org.demo</groupId><artifactId>demo</artifactId><versioning><versions><version>1.0</version><version>1.2.0</version><version>2.0-SNAPSHOT</version></versions></versioning></metadata>' };
    }
    if (path === '/maven/org/demo/garbled/maven-metadata.xml') return { type: 'application/xml', body: '<html><body>Service Unavailable</body></html>' };
    if (/^\/maven\/org\/demo\/demo\/(1\.0|1\.2\.0)\/demo-\1\.pom$/.test(path)) {
      return { type: 'application/xml', body: '<project><groupId>org.demo</groupId><artifactId>demo</artifactId><version>1.2.0</version><scm><url>https://github.com/owner/demo-java</url></scm></project>' };
    }
    return null;
  });

  // RubyGems: the versions API (yanked versions absent), a .gem wrapping data.tar.gz and metadata.gz.
  const gem = async (version: string, data: Record<string, string>) =>
    tarOf({ 'metadata.gz': gzipSync(GEM_METADATA.replace('1.2.0', version)), 'data.tar.gz': await tgzOf(data), 'checksums.yaml.gz': gzipSync('---\n') });
  files.set('/rubygems/gems/demo-1.2.0.gem', await gem('1.2.0', TREES.rubygems));
  files.set('/rubygems/gems/demo-1.1.0-java.gem', await gem('1.1.0', { 'lib/demo.rb': 'java\n' }));
  routes.push((path) => {
    if (path === '/rubygems/api/v1/versions/demo.json') {
      return json([
        { number: '2.0.0.beta1', platform: 'ruby', prerelease: true },
        { number: '1.2.0', platform: 'ruby', prerelease: false },
        { number: '1.1.0', platform: 'java', prerelease: false },
      ]);
    }
    if (path === '/rubygems/api/v1/versions/garbled.json') return json({ error: 'not a list' });
    if (/^\/rubygems\/api\/v2\/rubygems\/demo\/versions\/[^/]+\.json$/.test(path)) return json({ homepage_uri: 'https://demo.example.test', metadata: { source_code_uri: 'https://github.com/owner/demo-gem/tree/v1.2.0' } });
    return null;
  });

  // NuGet: the service index, the flat container (lower-cased ids and versions), .nupkg and .nuspec.
  files.set('/nuget/flat/demo.lib/1.2.0/demo.lib.1.2.0.nupkg', await makeZip(TREES.nuget));
  files.set('/nuget/flat/demo.lib/1.0.0/demo.lib.1.0.0.nupkg', await makeZip({ 'demo.lib.nuspec': '<package/>\n' }));
  routes.push((path, base) => {
    if (path === '/nuget/v3/index.json') return json({ version: '3.0.0', resources: [{ '@id': `${base}/nuget/flat/`, '@type': 'PackageBaseAddress/3.0.0' }] });
    if (path === '/nuget/flat/demo.lib/index.json') return json({ versions: ['1.0.0', '1.2.0', '1.10.0-preview.1', '2.0.0-preview.1'] });
    if (path === '/nuget/flat/garbled/index.json') return json({ versions: 'none' });
    if (path === '/nuget/flat/demo.lib/1.2.0/demo.lib.nuspec') {
      return { type: 'application/xml', body: `<?xml version="1.0"?><package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd"><metadata><id>Demo.Lib</id><version>1.2.0</version><repository type="git" url="https://github.com/owner/demo-net" commit="${SHA}" /></metadata></package>` };
    }
    return null;
  });

  // Packagist: Composer v2 metadata (minified), a GitHub-style zipball under `<owner>-<repo>-<sha>/`.
  files.set('/packagist/dist/demo-1.2.0.zip', await makeZip(prefixed(TREES.packagist, 'test-demo-0123456/')));
  routes.push((path, base) => {
    if (path === '/packagist/p2/test/demo.json') {
      return json({
        minified: 'composer/2.0',
        packages: {
          'test/demo': [
            { name: 'test/demo', version: 'v2.0.0-RC1', version_normalized: '2.0.0.0-RC1', dist: { type: 'zip', url: `${base}/packagist/dist/demo-2.0.0.zip` }, source: { type: 'git', url: 'https://github.com/test/demo.git', reference: 'f'.repeat(40) } },
            { version: 'v1.2.0', version_normalized: '1.2.0.0', dist: { type: 'zip', url: `${base}/packagist/dist/demo-1.2.0.zip` }, source: { type: 'git', url: 'https://github.com/test/demo.git', reference: SHA } },
            { version: 'v1.0.0', version_normalized: '1.0.0.0', dist: { type: 'zip', url: `${base}/packagist/dist/demo-1.0.0.zip` }, source: { type: 'git', url: 'https://github.com/test/demo.git', reference: 'e'.repeat(40) } },
          ],
        },
      });
    }
    if (path === '/packagist/p2/test/garbled.json') return json({ packages: { 'test/garbled': 'x' } });
    return null;
  });

  // pub: the v2 API with retracted versions, archives of the package's own tree.
  files.set('/pub/archives/demo-1.2.0.tar.gz', await tgzOf(TREES.pub));
  files.set('/pub/archives/demo-1.3.0.tar.gz', await tgzOf({ 'lib/demo.dart': 'retracted\n' }));
  routes.push((path, base) => {
    if (path === '/pub/api/packages/demo') {
      const v = (version: string, retracted = false) => ({ version, retracted, archive_url: `${base}/pub/archives/demo-${version}.tar.gz`, pubspec: { name: 'demo', version, repository: 'https://github.com/owner/demo-dart' } });
      return json({ name: 'demo', latest: v('1.3.0'), versions: [v('1.0.0'), v('1.2.0'), v('1.3.0', true), v('2.0.0-dev.1')] });
    }
    if (path === '/pub/api/packages/garbled') return json({ name: 'garbled', versions: {} });
    return null;
  });

  // Hex: the API (releases, meta.links) and the repository's outer tar with contents.tar.gz.
  files.set('/hexrepo/tarballs/demo-1.2.0.tar', await tarOf({ VERSION: '3', CHECKSUM: 'ABC', 'metadata.config': '{<<"name">>,<<"demo">>}.\n', 'contents.tar.gz': await tgzOf(TREES.hex) }));
  routes.push((path) => {
    if (path === '/hex/api/packages/demo') {
      return json({ name: 'demo', releases: [{ version: '1.3.0-rc.0' }, { version: '1.2.0' }, { version: '1.0.0' }], meta: { links: { GitHub: 'https://github.com/owner/demo_ex' } } });
    }
    if (path === '/hex/api/packages/garbled') return json({ name: 'garbled', releases: 'none' });
    return null;
  });

  fixture = await startRegistryFixture((path, req, res) => {
    const base = `http://${req.headers.host ?? ''}`;
    const named = Object.values(NAME_OF)
      .map((re) => re.exec(path)?.[1])
      .find((n) => n !== undefined);
    if (named === 'hangs') return; // never answers: the client's deadline ends it
    if (named === 'broken') return void res.writeHead(500).end('oops');
    const file = files.get(path);
    if (file !== undefined) return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file);
    for (const route of routes) {
      const answer = route(path, base);
      if (answer !== null) return void res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/octet-stream' }).end(answer.body);
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
  });
  h = await startJobsHarness({ PACKAGE_REGISTRIES: JSON.stringify(registriesAt(fixture.url)), RESOLUTION_TIMEOUT_MS: '3000' });
  token = await h.token('lister');
});
afterAll(async () => {
  await Promise.all([h.close(), fixture.close()]);
});

describe('target grammar of every registry', () => {
  it.each([
    ['golang:example.test/Demo@v1.2.0', { registry: 'go', name: 'example.test/Demo', spec: 'v1.2.0' }],
    ['maven:org.slf4j:slf4j-api@[2.0,2.1)', { registry: 'maven', name: 'org.slf4j:slf4j-api', spec: '[2.0,2.1)' }],
    ['gem:rails@~> 7.2', { registry: 'rubygems', name: 'rails', spec: '~>7.2', text: 'rubygems:rails@~>7.2' }],
    ['nuget:Newtonsoft.Json@13.0.3', { registry: 'nuget', name: 'newtonsoft.json', spec: '13.0.3' }],
    ['composer:Symfony/Console@^7.1 || ^6.4', { registry: 'packagist', name: 'symfony/console', spec: '^7.1 || ^6.4' }],
    ['pub:http@>=1.0.0  <2.0.0', { registry: 'pub', name: 'http', spec: '>=1.0.0 <2.0.0' }],
    ['hex:phoenix@~> 1.7', { registry: 'hex', name: 'phoenix', spec: '~>1.7' }],
  ])('parses %s', (text, target) => expect(parseTarget(text)).toMatchObject({ ok: true, target }));

  it.each(['go:demo', 'go:example.test/../x', 'maven:slf4j-api', 'packagist:console', 'pub:Http', 'hex:1x', 'nuget:a b', 'gem:-x'])('refuses %s', (text) =>
    expect(parseTarget(text)).toMatchObject({ ok: false }),
  );

  it('translates each ecosystem’s version requirements', () => {
    expect(composerRange('~7.1')).toBe('>=7.1.0 <8.0.0-0');
    expect(composerRange('^6.4 || v7.1.*')).toBe('^6.4 || 7.1.*');
    expect(composerRange('>=1.0, <2.0')).toBe('>=1.0 <2.0');
    expect(composerRange('!=1.0')).toBeNull();
    expect(elixirRange('~> 1.7')).toBe('>=1.7.0 <2.0.0-0');
    expect(elixirRange('~> 0.5.2')).toBe('>=0.5.2 <0.6.0-0');
    expect(elixirRange('>= 1.0.0 and < 2.0.0 or == 3.0.0')).toBe('>=1.0.0 <2.0.0 || =3.0.0');
    expect(compareNugetVersions('1.10.0', '1.9.0')).toBeGreaterThan(0);
    expect(compareNugetVersions('1.0.0-beta.10', '1.0.0-beta.9')).toBeGreaterThan(0);
    expect(compareNugetVersions('1.0.0', '1.0.0.0')).toBe(0);
    expect(highestInNugetRange('[1.0,2.0)', ['0.9.0', '1.0.0', '1.5.1', '2.0.0'])).toBe('1.5.1');
    expect(highestInNugetRange('(,1.0.0]', ['0.9.0', '1.0.0', '1.5.1'])).toBe('1.0.0');
  });
});

interface Case {
  readonly registry: keyof typeof TREES;
  readonly target: string;
  readonly extra?: Record<string, string>;
  readonly testFile: string;
  readonly identity: Record<string, unknown>;
}

const CASES: Case[] = [
  { registry: 'go', target: 'go:example.test/demo@v1.2.0', testFile: 'demo_test.go', identity: { version: 'v1.2.0', repo_url: 'https://github.com/owner/demo', commit_sha: SHA } },
  { registry: 'maven', target: 'maven:org.demo:demo@1.2.0', testFile: 'src/test/java/DemoTest.java', identity: { version: '1.2.0', repo_url: 'https://github.com/owner/demo-java' } },
  { registry: 'rubygems', target: 'rubygems:demo@1.2.0', extra: { '.gem/metadata.yml': GEM_METADATA }, testFile: 'spec/demo_spec.rb', identity: { version: '1.2.0', repo_url: 'https://github.com/owner/demo-gem' } },
  { registry: 'nuget', target: 'nuget:demo.lib@1.2.0', testFile: 'tests/DemoTests.cs', identity: { version: '1.2.0', repo_url: 'https://github.com/owner/demo-net', commit_sha: SHA } },
  { registry: 'packagist', target: 'packagist:test/demo@v1.2.0', testFile: 'tests/DemoTest.php', identity: { version: 'v1.2.0', repo_url: 'https://github.com/test/demo', commit_sha: SHA } },
  { registry: 'pub', target: 'pub:demo@1.2.0', testFile: 'test/demo_test.dart', identity: { version: '1.2.0', repo_url: 'https://github.com/owner/demo-dart' } },
  { registry: 'hex', target: 'hex:demo@1.2.0', testFile: 'test/demo_test.exs', identity: { version: '1.2.0', repo_url: 'https://github.com/owner/demo_ex' } },
];

describe('package targets of every registry', () => {
  it.each(CASES)('$target lists its archive exactly, pages, filters and reads byte-exact', async ({ registry, target, extra, testFile, identity }) => {
    const workers = await h.startWorkers();
    try {
      const tree: Record<string, string> = { ...TREES[registry], ...extra };
      const odd = Object.keys(tree).find((p) => p.includes(ODD)) ?? '';
      const ready = await expectArchiveListing(client, target, tree, testFile, odd);
      expect(ready.target_resolution?.served).toMatchObject({ registry, ...identity });
    } finally {
      await workers.close();
    }
  });

  it('resolves versions as each registry’s own tools do', async () => {
    const workers = await h.startWorkers();
    try {
      const version = async (target: string) => (await listOk({ target, wait_timeout_ms: 20_000 })).indexed_version;
      // Go: latest is the highest release; a prefix query; a comparison; a pseudo-version the list does not name.
      expect(await version('go:example.test/demo')).toBe('v1.2.0');
      expect(await version('go:example.test/demo@v1.0')).toBe('v1.0.0');
      expect(await version('go:example.test/demo@<v1.2.0')).toBe('v1.0.0');
      expect(await version('go:example.test/demo@v0.0.0-20240101000000-abcdefabcdef')).toBe('v0.0.0-20240101000000-abcdefabcdef');
      // Entries outside `<module>@<version>/` are refused, not listed.
      const old = await listOk({ target: 'go:example.test/demo@v1.0.0', recursive: true });
      expect(old.entries.map((e) => e.path)).toEqual(['demo.go']);
      // Maven: latest skips snapshots; a range; a version without a sources jar lists its jar.
      expect(await version('maven:org.demo:demo@[1.0,1.1)')).toBe('1.0');
      const jar = await listOk({ target: 'maven:org.demo:demo@1.0', wait_timeout_ms: 20_000, recursive: true });
      expect(jar.entries.filter((e) => e.kind === 'file').map((e) => e.path)).toEqual(['META-INF/MANIFEST.MF', 'org/demo/Demo.class']);
      expect(await version('maven:org.demo:demo')).toBe('1.2.0');
      // RubyGems: a pessimistic requirement; a version published for one platform only.
      expect(await version('rubygems:demo@~> 1.1')).toBe('1.2.0');
      expect(await version('gem:demo@< 1.2')).toBe('1.1.0');
      // NuGet: latest skips pre-releases; interval notation; ids are case-insensitive.
      expect(await version('nuget:Demo.Lib')).toBe('1.2.0');
      expect(await version('nuget:demo.lib@[1.0.0,1.2.0)')).toBe('1.0.0');
      // Packagist: Composer's tilde and exact versions with or without their `v`.
      expect(await version('packagist:test/demo@1.2.0')).toBe('v1.2.0');
      expect(await version('composer:test/demo')).toBe('v1.2.0');
      expect(await version('packagist:test/demo@~1.0')).toBe('v1.2.0');
      // pub: retracted versions are skipped unless pinned; a pinned retracted one is served.
      expect(await version('pub:demo')).toBe('1.2.0');
      expect(await version('pub:demo@1.3.0')).toBe('1.3.0');
      // Hex: Elixir requirements; latest skips pre-releases.
      expect(await version('hex:demo')).toBe('1.2.0');
      // …and a version whose tarball is gone is a 409 naming the repository the package links.
      const gone = await client.list({ target: 'hex:demo@~> 1.0 and < 1.2.0', wait_timeout_ms: 20_000 });
      expect(gone.statusCode).toBe(409);
      expect(gone.json()).toMatchObject({ code: 'SOURCE_INVENTORY_SCOPE_UNAVAILABLE', repo_url: 'https://github.com/owner/demo_ex' });
      expect(gone.json<{ detail: string }>().detail).toContain('hex:demo@1.0.0');
    } finally {
      await workers.close();
    }
  });

  const problems: [string, number, string][] = [];
  const hangs: string[] = [];
  for (const [registry, missing] of [
    ['go', 'go:example.test/demo@v9.9.9'],
    ['maven', 'maven:org.demo:demo@9.9'],
    ['rubygems', 'rubygems:demo@9.9.9'],
    ['nuget', 'nuget:demo.lib@9.9.9'],
    ['packagist', 'packagist:test/demo@v9.9.9'],
    ['pub', 'pub:demo@9.9.9'],
    ['hex', 'hex:demo@9.9.9'],
  ] as const) {
    const name = (n: string) => (registry === 'go' ? `go:example.test/${n}` : registry === 'maven' ? `maven:org.demo:${n}` : registry === 'packagist' ? `packagist:test/${n}` : `${registry}:${n}`);
    problems.push(
      [missing, 404, 'LIST_TARGET_NOT_FOUND'],
      [name('nothing'), 404, 'LIST_TARGET_NOT_FOUND'],
      [name('broken'), 502, 'REGISTRY_UNAVAILABLE'],
      [name('garbled'), 502, 'LIST_UNSUPPORTED_API'],
    );
    hangs.push(name('hangs'));
  }
  it.each(problems)('answers %s with %i %s', (target, status, code) => expectProblem(client, target, status, code));
  // The resolution deadline (3 s, so that a loaded machine's fixture answers are not cut short)
  // ends each; asked at once, the seven wait it out together.
  it('answers a registry that never answers with 504 TIMEOUT, for each registry', () => Promise.all(hangs.map((target) => expectProblem(client, target, 504, 'TIMEOUT'))));
});
