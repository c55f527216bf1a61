import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as CDX from '@cyclonedx/cyclonedx-library';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureHttp } from '../../../helpers/registry-fixture.js';
import { analyze } from '../../../../src/sbom/analyze.js';
import { cocoapodsEcosystem } from '../../../../src/ecosystems/cocoapods/analysis.js';
import { readPodfile } from '../../../../src/ecosystems/cocoapods/podfile.js';
import { podspecPath } from '../../../../src/ecosystems/cocoapods/registry.js';
import { TransientAnalysisError } from '../../../../src/model/types.js';
import { buildThrough, components, rootsOf } from '../../../helpers/ecosystem.js';
import { officialSpdxSchema } from '../../../helpers/spdx-schema.js';

/** CocoaPods: a Podfile.lock with every section a real one has, a Podfile, and the CDN's podspecs. */

const LOCK = `PODS:
  - Alamofire (5.9.1)
  - Firebase/Analytics (10.24.0):
    - Firebase/Core
  - Firebase/Core (10.24.0):
    - Firebase/CoreOnly
    - FirebaseAnalytics (~> 10.24.0)
  - Firebase/CoreOnly (10.24.0):
    - FirebaseCore (= 10.24.0)
  - FirebaseAnalytics (10.24.0):
    - FirebaseCore (~> 10.0)
  - FirebaseCore (10.24.0)
  - "GoogleUtilities/Environment (7.13.0)"
  - LocalKit (0.1.0):
    - Alamofire
  - ForkedPod (2.0.0)
  - boost (1.84.0)

DEPENDENCIES:
  - Alamofire (~> 5.9)
  - boost (from \`../node_modules/react-native/third-party-podspecs/boost.podspec\`)
  - Firebase/Analytics
  - ForkedPod (from \`https://github.com/example/ForkedPod.git\`, commit \`0a1b2c3\`)
  - GoogleUtilities/Environment
  - LocalKit (from \`../LocalKit\`)

SPEC REPOS:
  trunk:
    - Alamofire
    - Firebase
    - FirebaseAnalytics
    - FirebaseCore
    - GoogleUtilities

EXTERNAL SOURCES:
  boost:
    :podspec: "../node_modules/react-native/third-party-podspecs/boost.podspec"
  ForkedPod:
    :commit: 0a1b2c3
    :git: https://github.com/example/ForkedPod.git
  LocalKit:
    :path: "../LocalKit"

CHECKOUT OPTIONS:
  ForkedPod:
    :commit: 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567
    :git: https://github.com/example/ForkedPod.git

SPEC CHECKSUMS:
  Alamofire: f36a35757af4587d8e4f4bfa223ad10be2422b8c
  boost: d3f49c53809116a5d38da093a8aa78bf551aed09
  Firebase: 91fefd38712feb9186ea8996af6cbdef41473442

PODFILE CHECKSUM: 199f6fbbe6fb415c822cca992e6152000ac55b3e

COCOAPODS: 1.15.2
`;

const PODFILE = `platform :ios, '15.0'
use_frameworks!

target 'App' do
  pod 'Alamofire', '~> 5.9'
  pod 'Firebase/Analytics'
  pod 'LocalKit', :path => '../LocalKit'
  pod 'ForkedPod', git: 'https://github.com/example/ForkedPod.git', commit: '0a1b2c3'

  target 'AppTests' do
    inherit! :search_paths
    pod 'Quick', '>= 7.0', '< 8.0'
  end
end
`;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function cdn(mode: 'ok' | '500' | 'hang' | 'malformed') {
  const specs: Record<string, unknown> = {
    [`/${podspecPath('Alamofire', '5.9.1')}`]: { name: 'Alamofire', version: '5.9.1', license: 'MIT', summary: 'Elegant HTTP Networking in Swift', homepage: 'https://github.com/Alamofire/Alamofire', authors: { 'Alamofire Software Foundation': 'info@alamofire.org' }, source: { git: 'https://github.com/Alamofire/Alamofire.git', tag: '5.9.1' } },
    [`/${podspecPath('Firebase', '10.24.0')}`]: { name: 'Firebase', version: '10.24.0', license: { type: 'Apache-2.0', file: 'LICENSE' }, summary: 'Firebase' },
  };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (mode === 'hang') return;
    if (mode === '500') return void res.writeHead(500).end('down');
    if (mode === 'malformed') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"name": ');
    const spec = specs[path];
    if (spec === undefined) return void res.writeHead(404).end('Not Found');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(spec));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const http = fixtureHttp(mode === 'hang');
  open.push(http, { close: async () => { server.closeAllConnections(); await new Promise((resolve) => server.close(resolve)); } });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, http };
}

describe('CocoaPods', () => {
  it('gives one component per PODS entry, subspecs as their pod’s purl subpath, with exact edges and external sources marked', async () => {
    const eco = cocoapodsEcosystem(null);
    const result = await buildThrough(eco, [
      { path: 'ios/Podfile', content: PODFILE },
      { path: 'ios/Podfile.lock', content: LOCK },
    ]);
    expect(result.problems).toEqual([]);
    const comps = components(result);
    expect(comps.map((o) => eco.purl(o))).toEqual([
      'pkg:cocoapods/Alamofire@5.9.1',
      'pkg:cocoapods/Firebase@10.24.0#Analytics',
      'pkg:cocoapods/Firebase@10.24.0#Core',
      'pkg:cocoapods/Firebase@10.24.0#CoreOnly',
      'pkg:cocoapods/FirebaseAnalytics@10.24.0',
      'pkg:cocoapods/FirebaseCore@10.24.0',
      'pkg:cocoapods/GoogleUtilities@7.13.0#Environment',
      null,
      'pkg:cocoapods/ForkedPod@2.0.0?vcs_url=git%2Bhttps%3A%2F%2Fgithub.com%2Fexample%2FForkedPod.git%400a1b2c3d4e5f60718293a4b5c6d7e8f901234567',
      null,
    ]);
    const by = new Map(comps.map((o) => [o.name, o]));
    const names = (name: string): string[] => (by.get(name)?.dependencies ?? []).map((e) => `${e.ref.split('#').pop() ?? ''} ${e.range ?? ''}`.trim());
    expect(names('Firebase/Core')).toEqual(['Firebase/CoreOnly', 'FirebaseAnalytics ~> 10.24.0']);
    expect(names('Firebase/CoreOnly')).toEqual(['FirebaseCore = 10.24.0']);
    expect(by.get('LocalKit')).toMatchObject({ source: 'file', resolved: '../LocalKit', facts: { cocoapods_external: 'path' } });
    expect(by.get('boost')).toMatchObject({ source: 'file', facts: { cocoapods_external: 'podspec', podspec_sha1: 'd3f49c53809116a5d38da093a8aa78bf551aed09' } });
    expect(by.get('ForkedPod')).toMatchObject({ source: 'git', resolved: 'https://github.com/example/ForkedPod.git#0a1b2c3d4e5f60718293a4b5c6d7e8f901234567' });
    expect(by.get('Alamofire')?.facts).toMatchObject({ spec_repo: 'trunk' });
    expect(rootsOf(result)[0]?.dependencies.map((e) => e.ref.split('#').pop())).toEqual(['Alamofire', 'boost', 'Firebase/Analytics', 'ForkedPod', 'GoogleUtilities/Environment', 'LocalKit']);
    expect(comps.every((o) => !o.scopeKnown)).toBe(true);
    expect(result.inventory.lockfiles).toEqual([{ path: 'ios/Podfile.lock', kind: 'Podfile.lock', version: '1.15.2', entries: 10 }]);
    expect(result.inventory.associations).toEqual([{ manifest: 'ios/Podfile', lockfile: 'ios/Podfile.lock', role: 'root' }]);
  });

  it('reads a Podfile without a lock as declarations, with the target each sits in', async () => {
    expect(readPodfile(PODFILE).map((d) => `${d.name} [${d.requirement}] ${d.target ?? '-'}`)).toEqual([
      'Alamofire [~> 5.9] App',
      'Firebase/Analytics [] App',
      'LocalKit [path: ../LocalKit] App',
      'ForkedPod [git: https://github.com/example/ForkedPod.git] App',
      'Quick [>= 7.0, < 8.0] AppTests',
    ]);
    const alone = await buildThrough(cocoapodsEcosystem(null), [{ path: 'Podfile', content: PODFILE }]);
    expect(components(alone)).toEqual([]);
    expect(alone.inventory.declarations.map((d) => `${d.name} ${d.kind}`)).toEqual(['Alamofire target:App', 'Firebase/Analytics target:App', 'LocalKit target:App', 'ForkedPod target:App', 'Quick target:AppTests']);
  });

  it('names a broken lock', async () => {
    const broken = await buildThrough(cocoapodsEcosystem(null), [{ path: 'Podfile.lock', content: 'PODS: [unclosed\n' }]);
    expect(broken.problems).toMatchObject([{ path: 'Podfile.lock', reason: 'syntax' }]);
    const noPods = await buildThrough(cocoapodsEcosystem(null), [{ path: 'Podfile.lock', content: 'COCOAPODS: 1.15.2\n' }]);
    expect(noPods.problems).toMatchObject([{ path: 'Podfile.lock', reason: 'syntax' }]);
  });

  it('reads licenses and facts from the CDN’s podspecs; a CDN in trouble is the registry’s failure', async () => {
    const client = cocoapodsEcosystem(await cdn('ok')).metadata;
    expect(await client?.fetch('Alamofire', '5.9.1')).toMatchObject({ license: 'MIT', description: 'Elegant HTTP Networking in Swift', repository: 'https://github.com/Alamofire/Alamofire.git', author: 'Alamofire Software Foundation <info@alamofire.org>' });
    expect(await client?.fetch('Firebase/Analytics', '10.24.0')).toMatchObject({ license: 'Apache-2.0' });
    expect(await client?.fetch('Nope', '1.0.0')).toBeNull();
    await expect(cocoapodsEcosystem(await cdn('500')).metadata?.fetch('Alamofire', '5.9.1')).rejects.toBeInstanceOf(TransientAnalysisError);
    await expect(cocoapodsEcosystem(await cdn('hang')).metadata?.fetch('Alamofire', '5.9.1')).rejects.toBeInstanceOf(TransientAnalysisError);
    await expect(cocoapodsEcosystem(await cdn('malformed')).metadata?.fetch('Alamofire', '5.9.1')).rejects.toThrow();
  });

  it('renders strict-valid CycloneDX and valid SPDX; the text format names CocoaPods', async () => {
    const files = [
      { path: 'ios/Podfile', content: PODFILE },
      { path: 'ios/Podfile.lock', content: LOCK },
    ];
    expect(await new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7).validate((await analyze(files, 'cyclonedx')).document)).toBeNull();
    expect(officialSpdxSchema(JSON.parse((await analyze(files, 'spdx')).document))).toBe(true);
    expect((await analyze(files, 'text')).document).toMatch(/^CocoaPods +Firebase\/Analytics +10\.24\.0/m);
  });
});
