import type { ServerResponse } from 'node:http';
import { registriesAt, startRegistryFixture } from '../helpers/package-targets.js';

/**
 * One fixture server speaking nine registries' metadata protocols (each under its own path, crates
 * and PyPI at the root as their APIs are), with a package `demo` of three versions in each, in
 * the documents' real shapes: the middle version is yanked (crates, PyPI), retracted (Go's
 * `retract` in the latest go.mod, pub's `retracted`), unlisted (NuGet's `listed: false`) or
 * retired (Hex). `crates:broken` answers 500; `crates:slow` never answers (until closed).
 */

export interface InspectionRegistries {
  readonly url: string;
  /** `PACKAGE_REGISTRIES` pointing every registry at this server. */
  readonly registries: Record<string, string>;
  readonly requests: string[];
  close(): Promise<void>;
}

const TIMES = { '1.0.0': '2023-03-01T10:00:00Z', '1.1.0': '2023-09-15T12:30:00Z', '1.2.0': '2024-02-20T08:45:00Z' } as const;

function documents(base: string): Record<string, unknown> {
  const nugetLeaf = (version: string, listed: boolean, published: string) => ({
    '@id': `${base}/nuget/reg/demo.lib/${version}.json`,
    catalogEntry: {
      '@id': `${base}/nuget/catalog/demo.lib.${version}.json`,
      id: 'Demo.Lib',
      version,
      listed,
      published,
      authors: 'Demo Team',
      description: 'Demo library for .NET.',
      licenseExpression: 'MIT',
      projectUrl: 'https://github.com/owner/demo.lib',
      dependencyGroups: [
        { targetFramework: 'net8.0', dependencies: [{ id: 'Newtonsoft.Json', range: '[13.0.1, )' }] },
        { targetFramework: 'netstandard2.0' },
      ],
    },
    packageContent: `${base}/nuget/flat/demo.lib/${version}/demo.lib.${version}.nupkg`,
  });
  const pubVersion = (version: keyof typeof TIMES, retracted: boolean) => ({
    version,
    retracted,
    published: TIMES[version],
    archive_url: `${base}/pub/archives/demo-${version}.tar.gz`,
    pubspec: { name: 'demo', version, description: 'A demo Dart package.', repository: 'https://github.com/owner/demo', environment: { sdk: '>=3.0.0 <4.0.0' }, dependencies: { http: '^1.1.0' }, dev_dependencies: { test: '^1.24.0' } },
  });
  return {
    '/api/v1/crates/demo': {
      crate: { id: 'demo', name: 'demo', description: 'A demo crate.', homepage: null, repository: 'https://github.com/owner/demo', max_version: '1.2.0', max_stable_version: '1.2.0', newest_version: '1.2.0' },
      versions: [
        { id: 3, crate: 'demo', num: '1.2.0', yanked: false, yank_message: null, created_at: '2024-02-20T08:45:00.000000+00:00', license: 'MIT OR Apache-2.0', crate_size: 10240, published_by: { id: 1, login: 'alice', name: 'Alice', url: 'https://github.com/alice' } },
        { id: 2, crate: 'demo', num: '1.1.0', yanked: true, yank_message: 'miscompiles on 32-bit targets', created_at: '2023-09-15T12:30:00.000000+00:00', license: 'MIT OR Apache-2.0', crate_size: 10100, published_by: null },
        { id: 1, crate: 'demo', num: '1.0.0', yanked: false, yank_message: null, created_at: '2023-03-01T10:00:00.000000+00:00', license: 'MIT', crate_size: 9000, published_by: null },
      ],
    },
    '/api/v1/crates/demo/1.1.0/dependencies': {
      dependencies: [
        { id: 11, version_id: 2, crate_id: 'serde', req: '^1.0.190', optional: false, default_features: true, features: ['derive'], target: null, kind: 'normal' },
        { id: 12, version_id: 2, crate_id: 'cc', req: '^1.0', optional: true, default_features: true, features: [], target: null, kind: 'build' },
        { id: 13, version_id: 2, crate_id: 'proptest', req: '^1', optional: false, default_features: true, features: [], target: null, kind: 'dev' },
      ],
    },
    '/api/v1/crates/demo/1.2.0/dependencies': { dependencies: [{ id: 21, version_id: 3, crate_id: 'serde', req: '^1.0.197', optional: false, default_features: true, features: [], target: null, kind: 'normal' }] },
    '/pypi/demo-pkg/json': {
      info: { name: 'demo-pkg', version: '1.2.0', summary: 'A demo package.', license_expression: 'MIT' },
      releases: {
        '1.0.0': [{ filename: 'demo_pkg-1.0.0.tar.gz', packagetype: 'sdist', upload_time_iso_8601: '2023-03-01T10:00:00.123456Z', yanked: false, yanked_reason: null }],
        '1.1.0': [{ filename: 'demo_pkg-1.1.0.tar.gz', packagetype: 'sdist', upload_time_iso_8601: '2023-09-15T12:30:00.000000Z', yanked: true, yanked_reason: 'Broken wheel metadata' }],
        '1.2.0': [{ filename: 'demo_pkg-1.2.0.tar.gz', packagetype: 'sdist', upload_time_iso_8601: '2024-02-20T08:45:00.000000Z', yanked: false, yanked_reason: null }],
      },
    },
    '/pypi/demo-pkg/1.2.0/json': {
      info: {
        name: 'demo-pkg',
        version: '1.2.0',
        summary: 'A demo package.',
        license_expression: 'MIT',
        author: 'Alice',
        author_email: 'alice@example.org',
        project_urls: { Source: 'https://github.com/owner/demo-pkg' },
        requires_dist: ['requests>=2.28', 'rich>=13; extra == "cli"'],
        yanked: false,
        yanked_reason: null,
      },
      urls: [{ filename: 'demo_pkg-1.2.0.tar.gz', packagetype: 'sdist', upload_time_iso_8601: '2024-02-20T08:45:00.000000Z' }],
    },
    ...Object.fromEntries(
      (Object.keys(TIMES) as (keyof typeof TIMES)[]).map((v) => [`/go/example.test/demo/@v/v${v}.info`, { Version: `v${v}`, Time: TIMES[v], Origin: { VCS: 'git', URL: 'https://github.com/owner/demo', Ref: `refs/tags/v${v}` } }]),
    ),
    '/rubygems/api/v1/versions/demo.json': [
      { number: '1.2.0', platform: 'ruby', created_at: '2024-02-20T08:45:00.000Z', prerelease: false, licenses: ['MIT'] },
      { number: '1.0.0', platform: 'ruby', created_at: '2023-03-01T10:00:00.000Z', prerelease: false, licenses: ['MIT'] },
    ],
    '/rubygems/api/v2/rubygems/demo/versions/1.2.0.json': {
      name: 'demo',
      version: '1.2.0',
      platform: 'ruby',
      authors: 'Alice, Bob',
      info: 'A demo gem.',
      licenses: ['MIT'],
      homepage_uri: 'https://example.org/demo',
      source_code_uri: 'https://github.com/owner/demo',
      yanked: false,
      version_created_at: '2024-02-20T08:45:00.000Z',
      dependencies: { development: [{ name: 'rspec', requirements: '~> 3.12' }], runtime: [{ name: 'rack', requirements: '>= 2.2, < 4' }] },
    },
    '/nuget/v3/index.json': {
      version: '3.0.0',
      resources: [
        { '@id': `${base}/nuget/flat/`, '@type': 'PackageBaseAddress/3.0.0' },
        { '@id': `${base}/nuget/reg/`, '@type': 'RegistrationsBaseUrl/3.6.0' },
      ],
    },
    '/nuget/reg/demo.lib/index.json': {
      count: 1,
      items: [
        {
          '@id': `${base}/nuget/reg/demo.lib/index.json#page/1.0.0/1.2.0`,
          count: 3,
          lower: '1.0.0',
          upper: '1.2.0',
          items: [nugetLeaf('1.0.0', true, '2023-03-01T10:00:00+00:00'), nugetLeaf('1.1.0', false, '1900-01-01T00:00:00+00:00'), nugetLeaf('1.2.0', true, '2024-02-20T08:45:00+00:00')],
        },
      ],
    },
    '/packagist/p2/test/demo.json': {
      minified: 'composer/2.0',
      packages: {
        'test/demo': [
          {
            name: 'test/demo',
            description: 'A demo library.',
            version: 'v1.2.0',
            version_normalized: '1.2.0.0',
            license: ['MIT'],
            time: '2024-02-20T08:45:00+00:00',
            homepage: 'https://example.org/demo',
            source: { url: 'https://github.com/test/demo.git', type: 'git', reference: '0123456789abcdef0123456789abcdef01234567' },
            require: { php: '>=8.1', 'psr/log': '^3.0' },
            'require-dev': { 'phpunit/phpunit': '^10.5' },
          },
          { version: 'v1.1.0', version_normalized: '1.1.0.0', time: '2023-09-15T12:30:00+00:00', require: { php: '>=8.0', 'psr/log': '^2.0 || ^3.0' } },
        ],
      },
    },
    '/pub/api/packages/demo': { name: 'demo', latest: pubVersion('1.2.0', false), versions: [pubVersion('1.0.0', false), pubVersion('1.1.0', true), pubVersion('1.2.0', false)] },
    '/pub/api/packages/demo/score': { grantedPoints: 140, maxPoints: 160, likeCount: 3, tags: ['sdk:dart', 'license:bsd-3-clause', 'license:osi-approved', 'publisher:example.dev'] },
    '/hex/api/packages/demo': {
      name: 'demo',
      html_url: 'https://hex.pm/packages/demo',
      latest_stable_version: '1.2.0',
      latest_version: '1.2.0',
      meta: { licenses: ['Apache-2.0'], description: 'A demo Elixir package.', links: { GitHub: 'https://github.com/owner/demo' } },
      owners: [{ username: 'alice', email: 'alice@example.org', url: `${base}/hex/api/users/alice` }],
      releases: [
        { version: '1.2.0', inserted_at: '2024-02-20T08:45:00.000000Z', url: `${base}/hex/api/packages/demo/releases/1.2.0` },
        { version: '1.1.0', inserted_at: '2023-09-15T12:30:00.000000Z', url: `${base}/hex/api/packages/demo/releases/1.1.0` },
        { version: '1.0.0', inserted_at: '2023-03-01T10:00:00.000000Z', url: `${base}/hex/api/packages/demo/releases/1.0.0` },
      ],
      retirements: { '1.1.0': { reason: 'security', message: 'Use 1.2.0 or later' } },
    },
    '/hex/api/packages/demo/releases/1.2.0': {
      version: '1.2.0',
      inserted_at: '2024-02-20T08:45:00.000000Z',
      retirement: null,
      requirements: { jason: { app: 'jason', optional: false, requirement: '~> 1.4' }, plug: { app: 'plug', optional: true, requirement: '~> 1.14' } },
    },
  };
}

const TEXTS: Record<string, { type: string; body: string }> = {
  '/go/example.test/demo/@v/list': { type: 'text/plain', body: 'v1.0.0\nv1.1.0\nv1.2.0\n' },
  '/go/example.test/demo/@v/v1.1.0.mod': { type: 'text/plain', body: 'module example.test/demo\n\ngo 1.21\n\nrequire golang.org/x/text v0.13.0\n' },
  '/go/example.test/demo/@v/v1.2.0.mod': {
    type: 'text/plain',
    body: 'module example.test/demo\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/text v0.14.0\n\tgolang.org/x/sys v0.17.0 // indirect\n)\n\n// Published with a data race in the cache.\nretract v1.1.0\n',
  },
  '/maven/org/demo/demo/maven-metadata.xml': {
    type: 'application/xml',
    body: '<?xml version="1.0" encoding="UTF-8"?>\n<metadata><groupId>org.demo</groupId><artifactId>demo</artifactId><versioning><latest>1.2.0</latest><release>1.2.0</release><versions><version>1.0.0</version><version>1.1.0</version><version>1.2.0</version></versions><lastUpdated>20240220084500</lastUpdated></versioning></metadata>\n',
  },
  '/maven/org/demo/demo/1.2.0/demo-1.2.0.pom': {
    type: 'application/xml',
    body: `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.demo</groupId>
  <artifactId>demo</artifactId>
  <version>1.2.0</version>
  <description>A demo library for the JVM.</description>
  <url>https://example.org/demo</url>
  <licenses><license><name>Apache-2.0</name><url>https://www.apache.org/licenses/LICENSE-2.0</url></license></licenses>
  <scm><url>https://github.com/owner/demo</url></scm>
  <developers><developer><name>Alice</name></developer></developers>
  <dependencies>
    <dependency><groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-databind</artifactId><version>2.16.1</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>2.0.12</version><optional>true</optional></dependency>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version><scope>test</scope></dependency>
  </dependencies>
</project>
`,
  },
};

export async function startInspectionRegistries(): Promise<InspectionRegistries> {
  const requests: string[] = [];
  const held: ServerResponse[] = [];
  const server = await startRegistryFixture((path, req, res) => {
    requests.push(path);
    if (path.startsWith('/api/v1/crates/broken')) return void res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
    // Never answered: the request's deadline is what ends it (the server's close ends the socket).
    if (path.startsWith('/api/v1/crates/slow')) return void held.push(res);
    const text = TEXTS[path];
    if (text !== undefined) return void res.writeHead(200, { 'content-type': text.type }).end(text.body);
    const doc = documents(`http://${req.headers.host ?? ''}`)[path];
    if (doc !== undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"detail":"Not Found"}]}');
  });
  const { url } = server;
  return {
    url,
    requests,
    registries: registriesAt(url),
    close: () => server.close(),
  };
}
