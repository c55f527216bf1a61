import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as CDX from '@cyclonedx/cyclonedx-library';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureHttp } from '../../../helpers/registry-fixture.js';
import { analyze } from '../../../../src/sbom/analyze.js';
import { detectFiles } from '../../../../src/sbom/detect.js';
import { offlineEcosystems } from '../../../../src/ecosystems/analysis.js';
import { declaredVersion, pinnedVersion } from '../../../../src/ecosystems/nuget/msbuild.js';
import { nugetEcosystem } from '../../../../src/ecosystems/nuget/analysis.js';
import { TransientAnalysisError } from '../../../../src/model/types.js';
import { buildThrough, components, rootsOf } from '../../../helpers/ecosystem.js';
import { officialSpdxSchema } from '../../../helpers/spdx-schema.js';

/** .NET: packages.lock.json per project, project files with central package management, packages.config, deps.json, NuGet v3. */

const HASH = (c: string): string => Buffer.alloc(64, c).toString('base64');
const APP_LOCK = JSON.stringify({
  version: 1,
  dependencies: {
    'net8.0': {
      'Newtonsoft.Json': { type: 'Direct', requested: '[13.0.3, )', resolved: '13.0.3', contentHash: HASH('a') },
      Serilog: { type: 'CentralTransitive', requested: '[3.1.1, )', resolved: '3.1.1', contentHash: HASH('b') },
      'Microsoft.Extensions.Logging': { type: 'Direct', requested: '[8.0.0, )', resolved: '8.0.0', contentHash: HASH('c'), dependencies: { 'Microsoft.Extensions.Logging.Abstractions': '8.0.0' } },
      'Microsoft.Extensions.Logging.Abstractions': { type: 'Transitive', resolved: '8.0.0', contentHash: HASH('d') },
      'app.core': { type: 'Project', dependencies: { 'Newtonsoft.Json': '[13.0.3, )' } },
      'shared.utils': { type: 'Project' },
    },
    'net8.0/win-x64': {
      'Newtonsoft.Json': { type: 'Direct', requested: '[13.0.3, )', resolved: '13.0.3', contentHash: HASH('a') },
      'Microsoft.Extensions.Logging.Abstractions': { type: 'Transitive', resolved: '8.0.0', contentHash: HASH('d') },
    },
    'net6.0': {
      'Newtonsoft.Json': { type: 'Direct', requested: '[12.0.1, )', resolved: '12.0.1', contentHash: HASH('e') },
    },
  },
});
const CORE_LOCK = JSON.stringify({ version: 2, dependencies: { 'net8.0': { 'Newtonsoft.Json': { type: 'Direct', requested: '[13.0.3, )', resolved: '13.0.3', contentHash: HASH('a') } } } });
const APP_PROJ = `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFrameworks>net8.0;net6.0</TargetFrameworks><RestorePackagesWithLockFile>true</RestorePackagesWithLockFile></PropertyGroup>
  <ItemGroup>
    <PackageReference Include="Newtonsoft.Json" />
    <PackageReference Include="Microsoft.Extensions.Logging" />
    <ProjectReference Include="..\\App.Core\\App.Core.csproj" />
  </ItemGroup>
</Project>`;
const CORE_PROJ = '<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><PackageReference Include="Newtonsoft.Json" /></ItemGroup></Project>';

// A central-package-management repository without lockfiles.
const PACKAGES_PROPS = `<Project>
  <PropertyGroup><ManagePackageVersionsCentrally>true</ManagePackageVersionsCentrally><XunitVersion>2.9.0</XunitVersion></PropertyGroup>
  <ItemGroup>
    <PackageVersion Include="Dapper" Version="2.1.35" />
    <PackageVersion Include="Polly" Version="[8.4.1]" />
    <PackageVersion Include="xunit" Version="$(XunitVersion)" />
    <PackageVersion Include="Floating" Version="1.*" />
    <PackageVersion Include="Unused" Version="9.9.9" />
    <GlobalPackageReference Include="StyleCop.Analyzers" Version="1.2.0-beta.556" />
  </ItemGroup>
</Project>`;
const BUILD_PROPS = `<Project><ItemGroup Condition=" '$(Configuration)' == 'Debug' "><PackageReference Include="SerilogAnalyzer" Version="0.15.0" PrivateAssets="All" /></ItemGroup></Project>`;
const LIB_PROJ = `<Project Sdk="Microsoft.NET.Sdk"><ItemGroup>
  <PackageReference Include="Dapper" />
  <PackageReference Include="Polly" VersionOverride="8.5.0" />
  <PackageReference Include="Floating" />
</ItemGroup></Project>`;
const TEST_PROJ = `<Project Sdk="Microsoft.NET.Sdk"><ItemGroup>
  <PackageReference Include="xunit" />
  <PackageReference Include="Dapper" />
  <ProjectReference Include="../../src/Lib/Lib.csproj" />
</ItemGroup></Project>`;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function nuget(mode: 'ok' | '500' | 'hang' | 'malformed') {
  let origin = '';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (body: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (mode === 'hang') return;
    if (mode === '500') return void res.writeHead(500).end('down');
    if (path === '/v3/index.json') return json({ version: '3.0.0', resources: [{ '@id': `${origin}/v3/registration5-gz-semver2/`, '@type': 'RegistrationsBaseUrl/3.6.0' }, { '@id': `${origin}/v3-flatcontainer/`, '@type': 'PackageBaseAddress/3.0.0' }] });
    if (mode === 'malformed') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"catalogEntry": ');
    if (path === '/v3/registration5-gz-semver2/newtonsoft.json/13.0.3.json') return json({ '@id': 'x', catalogEntry: `${origin}/v3/catalog0/data/newtonsoft.json.13.0.3.json`, listed: true });
    if (path === '/v3/catalog0/data/newtonsoft.json.13.0.3.json') return json({ id: 'Newtonsoft.Json', version: '13.0.3', licenseExpression: 'MIT', description: 'Json.NET is a popular high-performance JSON framework for .NET', projectUrl: 'https://www.newtonsoft.com/json', authors: 'James Newton-King' });
    if (path === '/v3/registration5-gz-semver2/oldpkg/1.0.0.json') return json({ catalogEntry: { id: 'OldPkg', version: '1.0.0', licenseUrl: 'https://example.test/license.txt', deprecation: { reasons: ['Legacy'], message: 'Use NewPkg' } } });
    res.writeHead(404).end('not found');
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const http = fixtureHttp(mode === 'hang');
  open.push(http, { close: async () => { server.closeAllConnections(); await new Promise((resolve) => server.close(resolve)); } });
  return { base: `${origin}/v3/index.json`, http };
}

const lockUpload = () => [
  { path: 'src/App/App.csproj', content: APP_PROJ },
  { path: 'src/App/packages.lock.json', content: APP_LOCK },
  { path: 'src/App.Core/App.Core.csproj', content: CORE_PROJ },
  { path: 'src/App.Core/packages.lock.json', content: CORE_LOCK },
];

describe('.NET', () => {
  it('reads each project’s lock: one component per package and version across frameworks, projects as roots', async () => {
    const eco = nugetEcosystem(null);
    const result = await buildThrough(eco, lockUpload());
    expect(result.problems).toEqual([]);
    expect(rootsOf(result).map((o) => `${o.name} ${o.source}`)).toEqual(['App root', 'shared.utils workspace', 'App.Core root']);
    const comps = components(result);
    expect(comps.map((o) => `${o.lockfile.split('/')[1] ?? ''} ${o.name}@${o.version ?? ''}`)).toEqual([
      'App Newtonsoft.Json@13.0.3',
      'App Serilog@3.1.1',
      'App Microsoft.Extensions.Logging@8.0.0',
      'App Microsoft.Extensions.Logging.Abstractions@8.0.0',
      'App Newtonsoft.Json@12.0.1',
      'App.Core Newtonsoft.Json@13.0.3',
    ]);
    expect(comps.map((o) => eco.purl(o))[0]).toBe('pkg:nuget/Newtonsoft.Json@13.0.3');
    expect(comps[0]?.integrity).toBe(`sha512-${HASH('a')}`);
    // The requested range is a constraint, kept as such; the version is what was resolved.
    expect(comps[0]?.facts['nuget_requested']).toBe('[13.0.3, )');
    const logging = comps.find((o) => o.name === 'Microsoft.Extensions.Logging');
    expect(logging?.dependencies.map((e) => e.ref)).toEqual([comps[3]?.ref]);
    expect(rootsOf(result)[0]?.dependencies.map((e) => e.ref.split('#')[1])).toEqual(['newtonsoft.json@13.0.3', 'serilog@3.1.1', 'microsoft.extensions.logging@8.0.0', 'project:shared.utils', 'newtonsoft.json@12.0.1']);
    expect(comps.every((o) => !o.dev && o.scopeKnown)).toBe(true);
    expect(result.inventory.associations.map((a) => `${a.manifest} -> ${a.lockfile ?? '-'}`)).toEqual(['src/App/App.csproj -> src/App/packages.lock.json', 'src/App.Core/App.Core.csproj -> src/App.Core/packages.lock.json']);
  });

  it('reads project files with central package management: pinned references are components, tests and analyzers development-only', async () => {
    const eco = nugetEcosystem(null);
    const result = await buildThrough(eco, [
      { path: 'Directory.Packages.props', content: PACKAGES_PROPS },
      { path: 'src/Directory.Build.props', content: BUILD_PROPS },
      { path: 'src/Lib/Lib.csproj', content: LIB_PROJ },
      { path: 'tests/Lib.Tests/Lib.Tests.csproj', content: TEST_PROJ },
    ]);
    expect(result.problems).toEqual([]);
    expect(components(result).map((o) => `${o.name}@${o.version ?? ''} ${o.dev ? 'dev' : 'required'}`)).toEqual([
      'SerilogAnalyzer@0.15.0 dev',
      'Dapper@2.1.35 required',
      'Polly@8.5.0 required',
      'StyleCop.Analyzers@1.2.0-beta.556 dev',
      'xunit@2.9.0 dev',
    ]);
    expect(result.inventory.declarations).toEqual([{ manifest: 'src/Lib/Lib.csproj', name: 'Floating', range: '1.*', kind: 'PackageReference', ecosystem: 'nuget' }]);
    expect(rootsOf(result).map((o) => o.name)).toEqual(['Lib', 'Lib.Tests']);
    expect(result.inventory.resolutions.map((r) => `${r.manifest} ${r.outcome}`)).toEqual(['src/Lib/Lib.csproj resolution_failed', 'tests/Lib.Tests/Lib.Tests.csproj resolution_failed']);
    expect(pinnedVersion('[1.5.2]')).toBe('1.5.2');
    expect(pinnedVersion('[1.0,2.0)')).toBeNull();
  });

  it('gives a project root the version it packs as: <Version>, else <VersionPrefix>-<VersionSuffix>, over Directory.Build.props', async () => {
    const result = await buildThrough(nugetEcosystem(null), [
      { path: 'Directory.Build.props', content: '<Project><PropertyGroup><VersionPrefix>2.4.0</VersionPrefix><VersionSuffix>beta.1</VersionSuffix></PropertyGroup></Project>' },
      { path: 'src/Api/Api.csproj', content: '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><Version>3.1.0</Version></PropertyGroup><ItemGroup><PackageReference Include="Dapper" Version="2.1.35" /></ItemGroup></Project>' },
      { path: 'src/Core/Core.csproj', content: '<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><PackageReference Include="Polly" Version="8.5.0" /></ItemGroup></Project>' },
      { path: 'tools/Gen/Gen.csproj', content: '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><Version>$(GitVersion_SemVer)</Version></PropertyGroup></Project>' },
    ]);
    expect(result.problems).toEqual([]);
    expect(rootsOf(result).map((o) => `${o.name}@${o.version ?? '-'}`)).toEqual(['Api@3.1.0', 'Core@2.4.0-beta.1', 'Gen@-']);
    expect(declaredVersion(new Map([['PackageVersion', '1.0.0'], ['Version', '0.9.0']]))).toBe('1.0.0');
    expect(declaredVersion(new Map([['Version', '$(Major).$(Minor).0'], ['Major', '5'], ['Minor', '2']]))).toBe('5.2.0');
    expect(declaredVersion(new Map())).toBeNull();
  });

  it('reads packages.config and deps.json; a NuGet lock is never npm’s', async () => {
    const config = await buildThrough(nugetEcosystem(null), [
      { path: 'Legacy/Legacy.csproj', content: '<Project ToolsVersion="15.0"></Project>' },
      { path: 'Legacy/packages.config', content: '<?xml version="1.0" encoding="utf-8"?>\n<packages>\n  <package id="EntityFramework" version="6.4.4" targetFramework="net48" />\n  <package id="NUnit" version="3.14.0" targetFramework="net48" developmentDependency="true" />\n</packages>' },
    ]);
    expect(components(config).map((o) => `${o.name}@${o.version ?? ''} ${o.dev ? 'dev' : 'required'}`)).toEqual(['EntityFramework@6.4.4 required', 'NUnit@3.14.0 dev']);
    const deps = await buildThrough(nugetEcosystem(null), [
      {
        path: 'publish/App.deps.json',
        content: JSON.stringify({
          runtimeTarget: { name: '.NETCoreApp,Version=v8.0' },
          targets: { '.NETCoreApp,Version=v8.0': { 'App/1.0.0': { dependencies: { 'Newtonsoft.Json': '13.0.3' } }, 'Newtonsoft.Json/13.0.3': {} } },
          libraries: { 'App/1.0.0': { type: 'project', serviceable: false, sha512: '' }, 'Newtonsoft.Json/13.0.3': { type: 'package', serviceable: true, sha512: `sha512-${HASH('a')}`, path: 'newtonsoft.json/13.0.3' } },
        }),
      },
    ]);
    expect(rootsOf(deps).map((o) => o.name)).toEqual(['App']);
    expect(components(deps).map((o) => `${o.name}@${o.version ?? ''} ${o.integrity ?? ''}`)).toEqual([`Newtonsoft.Json@13.0.3 sha512-${HASH('a')}`]);
    const detected = detectFiles([{ path: 'packages.lock.json', content: APP_LOCK }], offlineEcosystems());
    expect([...detected.claims.keys()].map((e) => e.id)).toEqual(['nuget']);
    const broken = await buildThrough(nugetEcosystem(null), [{ path: 'packages.lock.json', content: '{"version": 1, "dependencies": [' }]);
    expect(broken.problems).toMatchObject([{ path: 'packages.lock.json', reason: 'syntax' }]);
    const brokenXml = await buildThrough(nugetEcosystem(null), [{ path: 'App.csproj', content: 'this is not a project file' }]);
    expect(brokenXml.problems).toMatchObject([{ path: 'App.csproj', reason: 'malformed' }]);
  });

  it('reads licences from NuGet registration (expression, else the URL), following the catalog entry', async () => {
    const client = nugetEcosystem(await nuget('ok')).metadata;
    expect(await client?.fetch('Newtonsoft.Json', '13.0.3')).toMatchObject({ license: 'MIT', homepage: 'https://www.newtonsoft.com/json', author: 'James Newton-King' });
    expect(await client?.fetch('OldPkg', '1.0.0')).toMatchObject({ license: 'https://example.test/license.txt', deprecated: 'Use NewPkg' });
    expect(await client?.fetch('Nope', '1.0.0')).toBeNull();
    await expect(nugetEcosystem(await nuget('500')).metadata?.fetch('Newtonsoft.Json', '13.0.3')).rejects.toBeInstanceOf(TransientAnalysisError);
    await expect(nugetEcosystem(await nuget('hang')).metadata?.fetch('Newtonsoft.Json', '13.0.3')).rejects.toBeInstanceOf(TransientAnalysisError);
    await expect(nugetEcosystem(await nuget('malformed')).metadata?.fetch('Newtonsoft.Json', '13.0.3')).rejects.toThrow();
  });

  it('renders valid documents; the text format names .NET', async () => {
    expect(await new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7).validate((await analyze(lockUpload(), 'cyclonedx')).document)).toBeNull();
    expect(officialSpdxSchema(JSON.parse((await analyze(lockUpload(), 'spdx')).document))).toBe(true);
    expect((await analyze(lockUpload(), 'text')).document).toMatch(/^\.NET +Serilog +3\.1\.1/m);
  });
});
