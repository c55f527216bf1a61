import { gzipSync } from 'node:zlib';
import type { FixturePackage } from './registry.js';
import { registriesAt, startRegistryFixture } from './package-targets.js';
import { makeTar, makeTarball, packageTarball } from './tarball.js';
import { makeZip } from './zip.js';

/**
 * One package, `demo` 1.2.0, in every registry with package targets, each under its own path of
 * one fixture server speaking that registry's protocol (crates and PyPI at the root, as their
 * APIs are), with the archive in the registry's real layout. npm's package is served by the jobs
 * harness's npm fixture (`npmPackages`).
 */

export interface RegistryCase {
  readonly registry: string;
  readonly target: string;
  /** The files the target lists (paths of the package's own tree). */
  readonly files: Readonly<Record<string, string>>;
}

export interface EveryRegistry {
  readonly url: string;
  /** `PACKAGE_REGISTRIES` pointing every registry at this server. */
  readonly registries: Record<string, string>;
  readonly cases: readonly RegistryCase[];
  /** Paths requested so far. */
  readonly requests: string[];
  close(): Promise<void>;
}

const tree = (main: string, content: string): Record<string, string> => ({ [main]: content, 'README.md': `# demo (${main})\n` });

export const NPM_FILES = tree('index.js', 'module.exports = 1;\n');

/** The npm package of the jobs harness's fixture registry. */
export async function npmPackages(): Promise<Record<string, FixturePackage>> {
  return { demo: { versions: { '1.2.0': { _tarball: await packageTarball(NPM_FILES) } } } };
}

const prefixed = (files: Record<string, string>, prefix: string): Record<string, string> => Object.fromEntries(Object.entries(files).map(([p, c]) => [`${prefix}${p}`, c]));
const tarOf = (files: Record<string, string | Buffer>): Promise<Buffer> => makeTar(Object.entries(files).map(([name, content]) => ({ name, content })));
const tgzOf = (files: Record<string, string | Buffer>): Promise<Buffer> => makeTarball(Object.entries(files).map(([name, content]) => ({ name, content })));

export async function startEveryRegistry(): Promise<EveryRegistry> {
  const trees = {
    pypi: tree('demo_pkg/__init__.py', 'VALUE = 1\n'),
    crates: tree('src/lib.rs', 'pub fn demo() {}\n'),
    go: tree('demo.go', 'package demo\n'),
    maven: tree('org/demo/Demo.java', 'class Demo {}\n'),
    rubygems: tree('lib/demo.rb', 'module Demo; end\n'),
    nuget: tree('lib/net8.0/Demo.xml', '<doc/>\n'),
    packagist: tree('src/Demo.php', '<?php class Demo {}\n'),
    pub: tree('lib/demo.dart', 'void main() {}\n'),
    hex: tree('lib/demo.ex', 'defmodule Demo do end\n'),
  };
  const gemMetadata = '--- !ruby/object:Gem::Specification\nname: demo\nversion: !ruby/object:Gem::Version\n  version: 1.2.0\n';
  const files = new Map<string, Buffer>([
    ['/files/demo_pkg-1.2.0.tar.gz', await tgzOf(prefixed(trees.pypi, 'demo_pkg-1.2.0/'))],
    ['/api/v1/crates/demo/1.2.0/download', await tgzOf(prefixed(trees.crates, 'demo-1.2.0/'))],
    ['/go/example.test/demo/@v/v1.2.0.zip', await makeZip(prefixed(trees.go, 'example.test/demo@v1.2.0/'))],
    ['/maven/org/demo/demo/1.2.0/demo-1.2.0-sources.jar', await makeZip(trees.maven)],
    ['/rubygems/gems/demo-1.2.0.gem', await tarOf({ 'metadata.gz': gzipSync(gemMetadata), 'data.tar.gz': await tgzOf(trees.rubygems) })],
    ['/nuget/flat/demo.lib/1.2.0/demo.lib.1.2.0.nupkg', await makeZip(trees.nuget)],
    ['/packagist/dist/demo-1.2.0.zip', await makeZip(prefixed(trees.packagist, 'test-demo-0123456/'))],
    ['/pub/archives/demo-1.2.0.tar.gz', await tgzOf(trees.pub)],
    ['/hexrepo/tarballs/demo-1.2.0.tar', await tarOf({ VERSION: '3', 'metadata.config': '{<<"name">>,<<"demo">>}.\n', 'contents.tar.gz': await tgzOf(trees.hex) })],
  ]);
  const documents = (base: string): Record<string, unknown> => ({
    '/pypi/demo-pkg/json': {
      info: { name: 'demo-pkg' },
      releases: { '1.2.0': [{ packagetype: 'sdist', filename: 'demo_pkg-1.2.0.tar.gz', url: `${base}/files/demo_pkg-1.2.0.tar.gz`, yanked: false }] },
    },
    '/api/v1/crates/demo': { crate: { name: 'demo', repository: null }, versions: [{ num: '1.2.0', yanked: false, dl_path: '/api/v1/crates/demo/1.2.0/download' }] },
    '/go/example.test/demo/@v/v1.2.0.info': { Version: 'v1.2.0', Time: '2024-01-01T00:00:00Z' },
    '/rubygems/api/v1/versions/demo.json': [{ number: '1.2.0', platform: 'ruby', prerelease: false }],
    '/nuget/v3/index.json': { version: '3.0.0', resources: [{ '@id': `${base}/nuget/flat/`, '@type': 'PackageBaseAddress/3.0.0' }] },
    '/nuget/flat/demo.lib/index.json': { versions: ['1.2.0'] },
    '/packagist/p2/test/demo.json': { minified: 'composer/2.0', packages: { 'test/demo': [{ name: 'test/demo', version: 'v1.2.0', version_normalized: '1.2.0.0', dist: { type: 'zip', url: `${base}/packagist/dist/demo-1.2.0.zip` } }] } },
    '/pub/api/packages/demo': (() => {
      const v = { version: '1.2.0', retracted: false, archive_url: `${base}/pub/archives/demo-1.2.0.tar.gz`, pubspec: { name: 'demo', version: '1.2.0' } };
      return { name: 'demo', latest: v, versions: [v] };
    })(),
    '/hex/api/packages/demo': { name: 'demo', releases: [{ version: '1.2.0' }], meta: { links: {} } },
  });
  const texts: Record<string, { type: string; body: string }> = {
    '/go/example.test/demo/@v/list': { type: 'text/plain', body: 'v1.2.0\n' },
    '/maven/org/demo/demo/maven-metadata.xml': {
      type: 'application/xml',
      body: '<metadata><groupId>org.demo</groupId><artifactId>demo</artifactId><versioning><versions><version>1.2.0</version></versions></versioning></metadata>',
    },
  };
  const requests: string[] = [];
  const server = await startRegistryFixture((path, req, res) => {
    requests.push(path);
    const file = files.get(path);
    if (file !== undefined) return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file);
    const text = texts[path];
    if (text !== undefined) return void res.writeHead(200, { 'content-type': text.type }).end(text.body);
    const doc = documents(`http://${req.headers.host ?? ''}`)[path];
    if (doc !== undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
  });
  const { url } = server;
  return {
    url,
    registries: registriesAt(url),
    cases: [
      { registry: 'npm', target: 'npm:demo@1.2.0', files: NPM_FILES },
      { registry: 'pypi', target: 'pypi:demo-pkg@1.2.0', files: trees.pypi },
      { registry: 'crates', target: 'crates:demo@1.2.0', files: trees.crates },
      { registry: 'go', target: 'go:example.test/demo@v1.2.0', files: trees.go },
      { registry: 'maven', target: 'maven:org.demo:demo@1.2.0', files: trees.maven },
      { registry: 'rubygems', target: 'rubygems:demo@1.2.0', files: { ...trees.rubygems, '.gem/metadata.yml': gemMetadata } },
      { registry: 'nuget', target: 'nuget:demo.lib@1.2.0', files: trees.nuget },
      { registry: 'packagist', target: 'packagist:test/demo@v1.2.0', files: trees.packagist },
      { registry: 'pub', target: 'pub:demo@1.2.0', files: trees.pub },
      { registry: 'hex', target: 'hex:demo@1.2.0', files: trees.hex },
    ],
    requests,
    close: () => server.close(),
  };
}
