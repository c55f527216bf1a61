import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { DocsSite, htmlPage } from './docs-site.js';
import { GitHost } from './git-host.js';
import { startRegistryFixture } from './package-targets.js';
import { startFixtureRegistry, type FixtureRegistry, type FixtureVersion } from './registry.js';
import { makeTar, makeTarball, packageTarball } from './tarball.js';
import { makeZip } from './zip.js';

/**
 * Every place a service process fetches from, served locally: the npm registry, the nine other
 * package registries (each on its own server, speaking its real protocol at its real paths), a
 * git host and a documentation site. `env` points a service at all of them (the settings a
 * deployment would change, nothing else); `targets` names one listable target of each with the
 * files its listing must show. Coordinates a fixture does not know are 404, as on the real
 * registries, so an analysis enriches what it can and degrades on the rest.
 */

export interface FixtureTarget {
  /** The registry (`npm`, `pypi`, …), `git` or `site`. */
  readonly source: string;
  readonly target: string;
  /** Source targets: every file the listing must show, with its content. Sites: none (pages are converted). */
  readonly files: Readonly<Record<string, string>>;
  /** A path to read, and text its content must contain. */
  readonly read: { readonly path: string; readonly contains: string };
}

export interface AllRegistries {
  /** The environment of a service process that fetches only from these fixtures. */
  readonly env: Readonly<Record<string, string>>;
  readonly targets: readonly FixtureTarget[];
  readonly npm: FixtureRegistry;
  readonly git: GitHost;
  readonly site: DocsSite;
  close(): Promise<void>;
}

/** The files of the demo package of each registry: a manifest-like file and one source file to read. */
const TREES = {
  npm: { 'package.json': '{"name":"e2e-demo","version":"1.2.0"}\n', 'index.js': 'export const registry = "npm";\n' },
  pypi: { 'pyproject.toml': '[project]\nname = "demo-pkg"\nversion = "2.1.0"\n', 'src/demo_pkg/__init__.py': 'REGISTRY = "pypi"\n' },
  crates: { 'Cargo.toml': '[package]\nname = "demo"\nversion = "1.2.0"\n', 'src/lib.rs': 'pub const REGISTRY: &str = "crates";\n' },
  go: { 'go.mod': 'module example.test/demo\n', 'demo.go': 'package demo // registry go\n' },
  maven: { 'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\n', 'org/demo/Demo.java': 'class Demo { String registry = "maven"; }\n' },
  rubygems: { 'README.md': '# demo gem\n', 'lib/demo.rb': 'module Demo; REGISTRY = "rubygems"; end\n' },
  nuget: { 'demo.lib.nuspec': '<package/>\n', 'lib/net8.0/Demo.xml': '<doc registry="nuget"/>\n' },
  packagist: { 'composer.json': '{"name":"test/demo"}\n', 'src/Demo.php': '<?php const REGISTRY = "packagist";\n' },
  pub: { 'pubspec.yaml': 'name: demo\n', 'lib/demo.dart': 'const registry = "pub";\n' },
  hex: { 'mix.exs': 'defmodule Demo.MixProject do end\n', 'lib/demo.ex': 'defmodule Demo do @registry "hex" end\n' },
  git: { 'README.md': '# widget\n', 'src/index.ts': 'export const source = "git";\n' },
} as const;

const GEM_METADATA = '--- !ruby/object:Gem::Specification\nname: demo\nversion: !ruby/object:Gem::Version\n  version: 1.2.0\n';

const prefixed = (files: Readonly<Record<string, string>>, prefix: string): Record<string, string> =>
  Object.fromEntries(Object.entries(files).map(([p, c]) => [`${prefix}${p}`, c]));
const tgzOf = (files: Readonly<Record<string, string | Buffer>>): Promise<Buffer> => makeTarball(Object.entries(files).map(([name, content]) => ({ name, content })));
const tarOf = (files: Readonly<Record<string, string | Buffer>>): Promise<Buffer> => makeTar(Object.entries(files).map(([name, content]) => ({ name, content })));

type Answer = { readonly type: string; readonly body: string | Buffer } | null;
const json = (doc: unknown): Answer => ({ type: 'application/json', body: JSON.stringify(doc) });
const bytes = (body: Buffer): Answer => ({ type: 'application/octet-stream', body });

/** A registry fixture answering from `route` (base URL, path), 404 for everything else. */
async function registry(route: (base: string, path: string) => Answer): Promise<{ url: string; close(): Promise<void> }> {
  return startRegistryFixture((path, req, res) => {
    const answer = route(`http://${req.headers.host ?? ''}`, path);
    if (answer === null) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
    res.writeHead(200, { 'content-type': answer.type }).end(answer.body);
  });
}

/**
 * Author fields as packages on the npm registry write them, one chosen per package name: an
 * e-mail, an e-mail and a URL, a URL where the e-mail goes, objects with and without one, a bare name.
 */
const AUTHORS: readonly unknown[] = [
  'Ada Lovelace <ada@example.test>',
  'Grace Hopper <grace@example.test> (https://grace.example.test)',
  'Jane Doe <https://jane.example.test>',
  { name: 'Example Corp.', email: 'opensource@example.test', url: 'https://example.test' },
  { name: 'Linus Example' },
  'Kat Example',
];
const LICENSES: readonly unknown[] = ['MIT', 'ISC', 'Apache-2.0', '(MIT OR Apache-2.0)', 'BSD-3-Clause', { type: 'MIT', url: 'https://opensource.org/licenses/MIT' }];

/** The manifest the npm fixture serves for any coordinate it was not given: the fields real ones carry. */
export function npmManifest(name: string, version: string): FixtureVersion {
  const pick = createHash('sha256').update(name).digest()[0] ?? 0;
  const repo = `https://github.com/example/${name.replace(/^@/, '').replace('/', '-')}`;
  return {
    description: `${name} ${version}`,
    license: LICENSES[pick % LICENSES.length],
    author: AUTHORS[pick % AUTHORS.length],
    maintainers: [{ name: 'maintainer', email: 'maintainer@example.test' }],
    contributors: pick % 2 === 0 ? ['Contributor One <one@example.test>', { name: 'Contributor Two', url: 'https://two.example.test' }] : [],
    homepage: `${repo}#readme`,
    bugs: { url: `${repo}/issues` },
    repository: { type: 'git', url: `git+${repo}.git` },
    keywords: ['fixture'],
    engines: { node: '>=14' },
  };
}

export async function startAllRegistries(): Promise<AllRegistries> {
  const started: { close(): Promise<void> }[] = [];
  const keep = <T extends { close(): Promise<void> }>(server: T): T => {
    started.push(server);
    return server;
  };
  try {
    const npm = keep(
      await startFixtureRegistry({
        packages: { 'e2e-demo': { versions: { '1.2.0': { ...npmManifest('e2e-demo', '1.2.0'), _tarball: await packageTarball(TREES.npm) } } } },
        fallback: npmManifest,
      }),
    );

    const pypiSdist = await tgzOf(prefixed(TREES.pypi, 'demo_pkg-2.1.0/'));
    const pypi = keep(
      await registry((base, path) => {
        if (path === '/pypi/demo-pkg/json') {
          const release = [{ packagetype: 'sdist', filename: 'demo_pkg-2.1.0.tar.gz', url: `${base}/files/demo_pkg-2.1.0.tar.gz`, yanked: false }];
          return json({ info: { name: 'demo-pkg', project_urls: { Source: 'https://github.com/owner/demo-pkg' } }, releases: { '2.1.0': release } });
        }
        return path === '/files/demo_pkg-2.1.0.tar.gz' ? bytes(pypiSdist) : null;
      }),
    );

    const crate = await tgzOf(prefixed(TREES.crates, 'demo-1.2.0/'));
    const crates = keep(
      await registry((_base, path) => {
        if (path === '/api/v1/crates/demo') {
          return json({ crate: { name: 'demo', repository: 'https://github.com/owner/demo' }, versions: [{ num: '1.2.0', yanked: false, dl_path: '/api/v1/crates/demo/1.2.0/download' }] });
        }
        return path === '/api/v1/crates/demo/1.2.0/download' ? bytes(crate) : null;
      }),
    );

    const goZip = await makeZip(prefixed(TREES.go, 'example.test/demo@v1.2.0/'));
    const go = keep(
      await registry((_base, path) => {
        if (path === '/example.test/demo/@v/list') return { type: 'text/plain', body: 'v1.2.0\n' };
        if (path === '/example.test/demo/@v/v1.2.0.info') return json({ Version: 'v1.2.0', Time: '2024-01-01T00:00:00Z' });
        return path === '/example.test/demo/@v/v1.2.0.zip' ? bytes(goZip) : null;
      }),
    );

    const sourcesJar = await makeZip(TREES.maven);
    const maven = keep(
      await registry((_base, path) => {
        if (path === '/org/demo/demo/maven-metadata.xml') {
          return { type: 'application/xml', body: '<metadata><groupId>org.demo</groupId><artifactId>demo</artifactId><versioning><versions><version>1.2.0</version></versions></versioning></metadata>' };
        }
        if (path === '/org/demo/demo/1.2.0/demo-1.2.0.pom') return { type: 'application/xml', body: '<project><groupId>org.demo</groupId><artifactId>demo</artifactId><version>1.2.0</version></project>' };
        return path === '/org/demo/demo/1.2.0/demo-1.2.0-sources.jar' ? bytes(sourcesJar) : null;
      }),
    );

    const gem = await tarOf({ 'metadata.gz': gzipSync(GEM_METADATA), 'data.tar.gz': await tgzOf(TREES.rubygems), 'checksums.yaml.gz': gzipSync('---\n') });
    const rubygems = keep(
      await registry((_base, path) => {
        if (path === '/api/v1/versions/demo.json') return json([{ number: '1.2.0', platform: 'ruby', prerelease: false }]);
        if (path === '/api/v2/rubygems/demo/versions/1.2.0.json') return json({ homepage_uri: 'https://demo.example.test' });
        return path === '/gems/demo-1.2.0.gem' ? bytes(gem) : null;
      }),
    );

    const nupkg = await makeZip(TREES.nuget);
    const nuget = keep(
      await registry((base, path) => {
        if (path === '/v3/index.json') return json({ version: '3.0.0', resources: [{ '@id': `${base}/flat/`, '@type': 'PackageBaseAddress/3.0.0' }] });
        if (path === '/flat/demo.lib/index.json') return json({ versions: ['1.2.0'] });
        return path === '/flat/demo.lib/1.2.0/demo.lib.1.2.0.nupkg' ? bytes(nupkg) : null;
      }),
    );

    const zipball = await makeZip(prefixed(TREES.packagist, 'test-demo-0123456/'));
    const packagist = keep(
      await registry((base, path) => {
        if (path === '/p2/test/demo.json') {
          const version = { name: 'test/demo', version: 'v1.2.0', version_normalized: '1.2.0.0', dist: { type: 'zip', url: `${base}/dist/demo-1.2.0.zip` } };
          return json({ minified: 'composer/2.0', packages: { 'test/demo': [version] } });
        }
        return path === '/dist/demo-1.2.0.zip' ? bytes(zipball) : null;
      }),
    );

    const pubArchive = await tgzOf(TREES.pub);
    const pub = keep(
      await registry((base, path) => {
        if (path === '/api/packages/demo') {
          const v = { version: '1.2.0', retracted: false, archive_url: `${base}/archives/demo-1.2.0.tar.gz`, pubspec: { name: 'demo', version: '1.2.0' } };
          return json({ name: 'demo', latest: v, versions: [v] });
        }
        return path === '/archives/demo-1.2.0.tar.gz' ? bytes(pubArchive) : null;
      }),
    );

    const hexTarball = await tarOf({ VERSION: '3', CHECKSUM: 'ABC', 'metadata.config': '{<<"name">>,<<"demo">>}.\n', 'contents.tar.gz': await tgzOf(TREES.hex) });
    const hex = keep(
      await registry((_base, path) => {
        if (path === '/api/packages/demo') return json({ name: 'demo', releases: [{ version: '1.2.0' }], meta: { links: {} } });
        return path === '/tarballs/demo-1.2.0.tar' ? bytes(hexTarball) : null;
      }),
    );
    // The CocoaPods CDN: no pod is known (analyses of Podfile.lock degrade, as offline).
    const cocoapods = keep(await registry(() => null));

    const git = keep(await GitHost.start());
    await git.create('acme', 'widget');
    await git.commit('acme', 'widget', 'main', TREES.git);

    const site = keep(
      await DocsSite.start({
        '/docs/': htmlPage('Docs home', 'Welcome to the fixture documentation', ['guide']),
        '/docs/guide': htmlPage('Guide', 'How to use the fixture'),
      }),
    );

    const packageRegistries = {
      pypi: pypi.url,
      crates: crates.url,
      go: go.url,
      maven: maven.url,
      rubygems: rubygems.url,
      nuget: `${nuget.url}/v3/index.json`,
      packagist: packagist.url,
      pub: pub.url,
      hex: hex.url,
      hex_repo: hex.url,
      cocoapods: cocoapods.url,
    };
    const file = (source: keyof typeof TREES, path: string): FixtureTarget['read'] => ({ path, contains: (TREES[source] as Record<string, string>)[path] ?? '' });
    const targets: FixtureTarget[] = [
      { source: 'npm', target: 'npm:e2e-demo@1.2.0', files: TREES.npm, read: file('npm', 'index.js') },
      { source: 'pypi', target: 'pypi:demo-pkg@2.1.0', files: TREES.pypi, read: file('pypi', 'src/demo_pkg/__init__.py') },
      { source: 'crates', target: 'crates:demo@1.2.0', files: TREES.crates, read: file('crates', 'src/lib.rs') },
      { source: 'go', target: 'go:example.test/demo@v1.2.0', files: TREES.go, read: file('go', 'demo.go') },
      { source: 'maven', target: 'maven:org.demo:demo@1.2.0', files: TREES.maven, read: file('maven', 'org/demo/Demo.java') },
      { source: 'rubygems', target: 'rubygems:demo@1.2.0', files: { ...TREES.rubygems, '.gem/metadata.yml': GEM_METADATA }, read: file('rubygems', 'lib/demo.rb') },
      { source: 'nuget', target: 'nuget:demo.lib@1.2.0', files: TREES.nuget, read: file('nuget', 'lib/net8.0/Demo.xml') },
      { source: 'packagist', target: 'packagist:test/demo@v1.2.0', files: TREES.packagist, read: file('packagist', 'src/Demo.php') },
      { source: 'pub', target: 'pub:demo@1.2.0', files: TREES.pub, read: file('pub', 'lib/demo.dart') },
      { source: 'hex', target: 'hex:demo@1.2.0', files: TREES.hex, read: file('hex', 'lib/demo.ex') },
      { source: 'git', target: 'github:acme/widget@main', files: TREES.git, read: file('git', 'src/index.ts') },
      { source: 'site', target: `site:${site.host}/docs`, files: {}, read: { path: '/', contains: 'Welcome to the fixture documentation' } },
    ];
    return {
      env: {
        // npm's own configuration, read from the environment like any npmrc setting.
        npm_config_registry: `${npm.url}/`,
        PACKAGE_REGISTRIES: JSON.stringify(packageRegistries),
        GIT_HOSTS: JSON.stringify({ github: git.baseUrl }),
        // The site is on 127.0.0.1, which the crawler refuses unless told otherwise.
        SITE_ALLOW_PRIVATE_ADDRESSES: 'true',
      },
      targets,
      npm,
      git,
      site,
      close: () => closeAll(started),
    };
  } catch (error) {
    await closeAll(started);
    throw error;
  }
}

async function closeAll(servers: readonly { close(): Promise<void> }[]): Promise<void> {
  await Promise.allSettled(servers.map((s) => s.close()));
}
