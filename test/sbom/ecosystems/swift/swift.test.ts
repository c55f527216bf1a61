import * as CDX from '@cyclonedx/cyclonedx-library';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../../../src/sbom/analyze.js';
import { readPackageSwift } from '../../../../src/ecosystems/swift/manifest.js';
import { swiftEcosystem } from '../../../../src/ecosystems/swift/analysis.js';
import { officialSpdxSchema } from '../../../helpers/spdx-schema.js';
import { buildThrough, components, rootsOf } from '../../../helpers/ecosystem.js';

/** Swift Package Manager: Package.resolved v1, v2 and v3 and Package.swift, written in the real shapes. */

const MANIFEST = `// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Tooling",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.2.0"),
        .package(url: "https://github.com/jpsim/Yams", .upToNextMinor(from: "5.0.0")),
        .package(url: "git@github.com:pointfreeco/swift-snapshot-testing.git", exact: "1.15.0"),
        .package(url: "https://github.com/example/forked", branch: "main"),
        .package(url: "https://github.com/example/pinned", revision: "0123456789abcdef0123456789abcdef01234567"),
        .package(url: "https://github.com/example/ranged", "1.0.0"..<"3.0.0"),
        .package(path: "../LocalKit"),
        .package(id: "mona.LinkedList", from: "1.1.0"),
        .package(url: "https://github.com/example/not-resolved", from: "2.0.0"),
    ],
    targets: [.executableTarget(name: "tool", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")])]
)
`;

const V3 = JSON.stringify(
  {
    originHash: 'a1b2c3',
    pins: [
      { identity: 'swift-argument-parser', kind: 'remoteSourceControl', location: 'https://github.com/apple/swift-argument-parser.git', state: { revision: '46989693916f56d1186bd59ac15124caef896560', version: '1.3.1' } },
      { identity: 'yams', kind: 'remoteSourceControl', location: 'https://github.com/jpsim/Yams', state: { revision: '9234124cff5e22e178988c18d8b95a8ae8007f76', version: '5.0.6' } },
      { identity: 'swift-snapshot-testing', kind: 'remoteSourceControl', location: 'git@github.com:pointfreeco/swift-snapshot-testing.git', state: { revision: 'e7b77228b34057041374ebef00c0fd7739d71a2b', version: '1.15.0' } },
      { identity: 'swift-custom-dump', kind: 'remoteSourceControl', location: 'https://github.com/pointfreeco/swift-custom-dump', state: { revision: 'f01efb26f3a192a0e88dcdb7c3c391ec2fc25d9c', version: '1.3.0' } },
      { identity: 'forked', kind: 'remoteSourceControl', location: 'https://github.com/example/forked', state: { branch: 'main', revision: 'aaaabbbbccccddddeeeeffff0000111122223333' } },
      { identity: 'pinned', kind: 'remoteSourceControl', location: 'https://github.com/example/pinned', state: { revision: '0123456789abcdef0123456789abcdef01234567' } },
      { identity: 'ranged', kind: 'remoteSourceControl', location: 'https://github.com/example/ranged', state: { revision: '1111111111111111111111111111111111111111', version: '2.4.0' } },
      { identity: 'localkit', kind: 'localSourceControl', location: '/Users/dev/LocalKit', state: { revision: '2222222222222222222222222222222222222222' } },
      { identity: 'mona.linkedlist', kind: 'registry', state: { version: '1.2.0' } },
    ],
    version: 3,
  },
  null,
  2,
);

const V1 = JSON.stringify({
  object: {
    pins: [
      { package: 'Alamofire', repositoryURL: 'https://github.com/Alamofire/Alamofire.git', state: { branch: null, revision: 'f96b619bcb2383b43d898402283924b80e2c4bae', version: '5.4.3' } },
      { package: 'SnapKit', repositoryURL: 'https://github.com/SnapKit/SnapKit', state: { branch: 'develop', revision: 'd458564516e5676af9c70b4f4b2a9178294f1bc6', version: null } },
    ],
  },
  version: 1,
});

const eco = swiftEcosystem();

describe('Swift', () => {
  it('reads a v3 Package.resolved beside its Package.swift: one component per pin, the root’s edges to what it declares', async () => {
    const result = await buildThrough(eco, [
      { path: 'Package.swift', content: MANIFEST },
      { path: 'Package.resolved', content: V3 },
    ]);
    expect(result.problems).toEqual([]);
    expect(rootsOf(result).map((o) => o.name)).toEqual(['Tooling']);
    const comps = components(result);
    expect(comps.map((o) => `${o.name}@${o.version ?? ''}`)).toEqual([
      'swift-argument-parser@1.3.1',
      'yams@5.0.6',
      'swift-snapshot-testing@1.15.0',
      'swift-custom-dump@1.3.0',
      'forked@aaaabbbbccccddddeeeeffff0000111122223333',
      'pinned@0123456789abcdef0123456789abcdef01234567',
      'ranged@2.4.0',
      'localkit@2222222222222222222222222222222222222222',
      'mona.linkedlist@1.2.0',
    ]);
    expect(comps.map((o) => eco.purl(o))).toEqual([
      'pkg:swift/github.com/apple/swift-argument-parser@1.3.1',
      'pkg:swift/github.com/jpsim/Yams@5.0.6',
      'pkg:swift/github.com/pointfreeco/swift-snapshot-testing@1.15.0',
      'pkg:swift/github.com/pointfreeco/swift-custom-dump@1.3.0',
      'pkg:swift/github.com/example/forked@aaaabbbbccccddddeeeeffff0000111122223333',
      'pkg:swift/github.com/example/pinned@0123456789abcdef0123456789abcdef01234567',
      'pkg:swift/github.com/example/ranged@2.4.0',
      null,
      'pkg:swift/mona/linkedlist@1.2.0',
    ]);
    // The resolved file records no scopes and no graph below the declarations.
    expect(comps.every((o) => !o.scopeKnown)).toBe(true);
    const root = rootsOf(result)[0];
    expect(root?.dependencies.map((e) => `${e.ref.split('#')[1] ?? ''} ${e.range ?? ''}`)).toEqual([
      'swift-argument-parser from: 1.2.0',
      'yams upToNextMinor: 5.0.0',
      'swift-snapshot-testing exact: 1.15.0',
      'forked branch: main',
      'pinned revision: 0123456789abcdef0123456789abcdef01234567',
      'ranged 1.0.0..<3.0.0',
      'localkit ',
      'mona.linkedlist from: 1.1.0',
    ]);
    expect(result.inventory.declarations).toEqual([{ manifest: 'Package.swift', name: 'not-resolved', range: 'from: 2.0.0', kind: 'dependencies', ecosystem: 'swift' }]);
    expect(result.inventory.lockfiles).toEqual([{ path: 'Package.resolved', kind: 'Package.resolved', version: '3', entries: 9 }]);
  });

  it('reads v1 pins by repository URL, a branch pin by its revision', async () => {
    const result = await buildThrough(eco, [{ path: 'App.xcworkspace/xcshareddata/swiftpm/Package.resolved', content: V1 }]);
    expect(components(result).map((o) => `${o.name}@${o.version ?? ''} ${eco.purl(o) ?? ''}`)).toEqual([
      'alamofire@5.4.3 pkg:swift/github.com/Alamofire/Alamofire@5.4.3',
      'snapkit@d458564516e5676af9c70b4f4b2a9178294f1bc6 pkg:swift/github.com/SnapKit/SnapKit@d458564516e5676af9c70b4f4b2a9178294f1bc6',
    ]);
    expect(components(result)[1]?.facts).toMatchObject({ branch: 'develop' });
  });

  it('lists a manifest’s dependencies as declarations without a Package.resolved, and names a broken one', async () => {
    const alone = await buildThrough(eco, [{ path: 'Package.swift', content: MANIFEST }]);
    expect(components(alone)).toEqual([]);
    expect(alone.inventory.declarations.map((d) => d.name)).toEqual(['swift-argument-parser', 'yams', 'swift-snapshot-testing', 'forked', 'pinned', 'ranged', 'mona.linkedlist', 'not-resolved']);
    expect(alone.inventory.resolutions).toMatchObject([{ manifest: 'Package.swift', outcome: 'resolution_failed' }]);
    const broken = await buildThrough(eco, [{ path: 'Package.resolved', content: '{"pins": 3, "version": 2}' }]);
    expect(broken.problems).toMatchObject([{ path: 'Package.resolved', reason: 'syntax' }]);
    const notJson = await buildThrough(eco, [{ path: 'Package.resolved', content: '{"pins": [' }]);
    expect(notJson.problems).toMatchObject([{ path: 'Package.resolved', reason: 'syntax', line: 1 }]);
  });

  it('reads dependencies written across lines and in conditional blocks, never running the file', () => {
    const m = readPackageSwift('var deps: [Package.Dependency] = [\n  .package(\n    url: "https://github.com/tuist/xcodeproj",\n    from: "9.0.0"\n  )\n]\n#if os(macOS)\ndeps.append(.package(url: "https://github.com/a/b.git", .exact("1.0.0")))\n#endif\nlet package = Package(name: "X", dependencies: deps)\n');
    expect(m).toEqual({
      name: 'X',
      dependencies: [
        { identity: 'xcodeproj', location: 'https://github.com/tuist/xcodeproj', requirement: 'from: 9.0.0', local: false },
        { identity: 'b', location: 'https://github.com/a/b.git', requirement: 'exact: 1.0.0', local: false },
      ],
    });
  });

  it('renders strict-valid CycloneDX and valid SPDX, the text format naming Swift', async () => {
    const files = [
      { path: 'Package.swift', content: MANIFEST },
      { path: 'Package.resolved', content: V3 },
    ];
    const cdx = await analyze(files, 'cyclonedx');
    expect(await new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7).validate(cdx.document)).toBeNull();
    const spdx = await analyze(files, 'spdx');
    expect(officialSpdxSchema(JSON.parse(spdx.document))).toBe(true);
    const text = await analyze(files, 'text');
    expect(text.document).toMatch(/^Swift +yams +5\.0\.6/m);
  });
});
