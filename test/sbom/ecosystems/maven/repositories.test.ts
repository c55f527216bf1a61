import { afterEach, describe, expect, it } from 'vitest';
import { registryHttp } from '../../../../src/ecosystems/shared/http.js';
import { snapshotBuild } from '../../../../src/ecosystems/maven/registry.js';
import { deps, pomXml, startMavenRepository, type FixtureMavenRepository, type MavenRepositoryOptions } from '../../../helpers/maven-repository.js';
import { buildJvm, components, scoped } from './helpers.js';

/** Relocations, snapshots and the repositories a POM declares, against fixture repositories. */

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function repository(options: MavenRepositoryOptions): Promise<FixtureMavenRepository> {
  const repo = await startMavenRepository(options);
  open.push(repo);
  return repo;
}

function endpoint(repo: FixtureMavenRepository) {
  const http = registryHttp({ retries: 0, timeoutMs: 10_000 });
  open.push(http);
  return { base: repo.url, http };
}

const app = (inner: string): string => pomXml('com.example:app:1.0', inner);

describe('Maven relocations', () => {
  it('follows <relocation> to the artifact it moved to, once, whichever path reaches it', async () => {
    const repo = await repository({
      poms: {
        'old.group:lib:1.0': pomXml('old.group:lib:1.0', '  <distributionManagement><relocation><groupId>new.group</groupId><message>moved</message></relocation></distributionManagement>'),
        'new.group:lib:1.0': pomXml('new.group:lib:1.0', deps('org.z:z:1.0')),
        'org.y:y:1.0': pomXml('org.y:y:1.0', deps('new.group:lib:1.0')),
        'org.z:z:1.0': pomXml('org.z:z:1.0'),
      },
    });
    const result = await buildJvm([{ path: 'pom.xml', content: app(deps('old.group:lib:1.0', 'org.y:y:1.0')) }], endpoint(repo));
    // By hand: old.group:lib is new.group:lib (depth 1), which y's declaration reaches again.
    expect(scoped(result)).toEqual(['new.group:lib:1.0', 'org.y:y:1.0', 'org.z:z:1.0']);
    const lib = components(result).find((o) => o.name === 'new.group:lib');
    expect(lib?.facts['relocated_from']).toBe('old.group:lib:1.0');
    const y = components(result).find((o) => o.name === 'org.y:y');
    expect(y?.dependencies.map((e) => e.ref)).toEqual([lib?.ref]);
    expect(result.inventory.notices.join('\n')).toContain('old.group:lib:1.0 is relocated to new.group:lib:1.0 (moved)');
  });
});

describe('Maven snapshots', () => {
  const metadata = `<?xml version="1.0" encoding="UTF-8"?>
<metadata modelVersion="1.1.0">
  <groupId>org.s</groupId><artifactId>snap</artifactId><version>2.0-SNAPSHOT</version>
  <versioning>
    <snapshot><timestamp>20240102.030405</timestamp><buildNumber>7</buildNumber></snapshot>
    <lastUpdated>20240102030405</lastUpdated>
    <snapshotVersions>
      <snapshotVersion><extension>jar</extension><value>2.0-20240102.030405-7</value><updated>20240102030405</updated></snapshotVersion>
      <snapshotVersion><classifier>sources</classifier><extension>jar</extension><value>2.0-20240102.030405-6</value></snapshotVersion>
      <snapshotVersion><extension>pom</extension><value>2.0-20240102.030405-7</value><updated>20240102030405</updated></snapshotVersion>
    </snapshotVersions>
  </versioning>
</metadata>`;

  it('reads the build a snapshot’s metadata names, Maven 3 and Maven 2 style', () => {
    expect(snapshotBuild(metadata, '2.0-SNAPSHOT')).toBe('2.0-20240102.030405-7');
    const maven2 = '<metadata><versioning><snapshot><timestamp>20230101.000000</timestamp><buildNumber>2</buildNumber></snapshot></versioning></metadata>';
    expect(snapshotBuild(maven2, '1.1-SNAPSHOT')).toBe('1.1-20230101.000000-2');
    expect(snapshotBuild('<metadata><versioning><snapshot><localCopy>true</localCopy></snapshot></versioning></metadata>', '1-SNAPSHOT')).toBeNull();
  });

  it('resolves a timestamped snapshot through its metadata, and a plain one by its file name', async () => {
    const repo = await repository({
      files: {
        '/org/s/snap/2.0-SNAPSHOT/maven-metadata.xml': metadata,
        '/org/s/snap/2.0-SNAPSHOT/snap-2.0-20240102.030405-7.pom': pomXml('org.s:snap:2.0-SNAPSHOT', deps('org.t:t:1.0')),
        '/org/s/plain/0.1-SNAPSHOT/plain-0.1-SNAPSHOT.pom': pomXml('org.s:plain:0.1-SNAPSHOT', deps('org.u:u:1.0')),
      },
      poms: { 'org.t:t:1.0': pomXml('org.t:t:1.0'), 'org.u:u:1.0': pomXml('org.u:u:1.0') },
    });
    const result = await buildJvm([{ path: 'pom.xml', content: app(deps('org.s:snap:2.0-SNAPSHOT', 'org.s:plain:0.1-SNAPSHOT')) }], endpoint(repo));
    expect(scoped(result)).toEqual(['org.s:plain:0.1-SNAPSHOT', 'org.s:snap:2.0-SNAPSHOT', 'org.t:t:1.0', 'org.u:u:1.0']);
    const snap = components(result).find((o) => o.name === 'org.s:snap');
    expect(snap?.facts['snapshot_build']).toBe('2.0-20240102.030405-7');
    expect(components(result).find((o) => o.name === 'org.s:plain')?.facts['snapshot_build']).toBeUndefined();
  });
});

describe('repositories an uploaded POM declares', () => {
  async function setUp() {
    const main = await repository({ poms: { 'org.z:z:1.0': pomXml('org.z:z:1.0') } });
    const extra = await repository({
      poms: { 'org.extra:only-there:1.0': pomXml('org.extra:only-there:1.0', deps('org.z:z:1.0')), 'org.extra:only-there-ranged:1.1': pomXml('org.extra:only-there-ranged:1.1') },
      versions: { 'org.extra:only-there-ranged': ['1.0', '1.1', '2.0'] },
    });
    const forbidden = await repository({ poms: { 'org.extra:only-there:1.0': pomXml('org.extra:only-there:1.0', deps('org.evil:evil:6.6.6')) } });
    const pom = app(`  <repositories>
    <repository><id>vendor</id><url>${extra.url}/</url></repository>
    <repository><id>elsewhere</id><url>${forbidden.url}</url></repository>
  </repositories>
${deps('org.extra:only-there:1.0', 'org.extra:only-there-ranged:[1.0,2.0)')}`);
    return { main, extra, forbidden, pom };
  }

  it('searches an allowed one after the configured repository, and never contacts another', async () => {
    const { main, extra, forbidden, pom } = await setUp();
    const result = await buildJvm([{ path: 'pom.xml', content: pom }], endpoint(main), { allowedRepositories: [extra.url.replace(/\/maven2$/, '')] });
    // The range is decided by the metadata the allowed repository holds.
    expect(scoped(result)).toEqual(['org.extra:only-there-ranged:1.1', 'org.extra:only-there:1.0', 'org.z:z:1.0']);
    expect(main.requests).toContain('/org/extra/only-there/1.0/only-there-1.0.pom');
    expect(extra.requests).toContain('/org/extra/only-there/1.0/only-there-1.0.pom');
    expect(forbidden.requests).toEqual([]);
    expect(result.inventory.notices.join('\n')).toMatch(new RegExp(`pom.xml declares the repository elsewhere ${forbidden.url}, which is not among the allowed ones`));
  });

  it('does not search a declared repository the operator did not allow', async () => {
    const { main, extra, forbidden, pom } = await setUp();
    const result = await buildJvm([{ path: 'pom.xml', content: pom }], endpoint(main));
    // Maven keeps a dependency whose POM is missing, without its dependencies.
    expect(scoped(result)).toEqual(['org.extra:only-there:1.0']);
    expect(result.inventory.declarations.map((d) => `${d.name} ${d.range}`)).toEqual(['org.extra:only-there-ranged [1.0,2.0)']);
    expect(extra.requests).toEqual([]);
    expect(forbidden.requests).toEqual([]);
    expect(result.inventory.notices.join('\n')).toContain(`declares the repository vendor ${extra.url}, which is not among the allowed ones`);
  });
});
