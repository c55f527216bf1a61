import { afterEach, describe, expect, it } from 'vitest';
import { mavenEcosystem } from '../../../../src/ecosystems/maven/analysis.js';
import { mavenPurl } from '../../../../src/ecosystems/maven/purl.js';
import { compareMavenVersions, highestInRange } from '../../../../src/ecosystems/maven/version.js';
import { registryHttp } from '../../../../src/ecosystems/shared/http.js';
import { TransientAnalysisError } from '../../../../src/model/types.js';
import { pomXml, startMavenRepository, type MavenRepositoryOptions } from '../../../helpers/maven-repository.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function metadataFor(options: MavenRepositoryOptions) {
  const repo = await startMavenRepository(options);
  const http = registryHttp({ retries: 0 });
  open.push(http, repo);
  const metadata = mavenEcosystem({ base: `${repo.url}/`, http }).metadata;
  if (metadata === null) throw new Error('a Maven ecosystem with a repository has metadata');
  return { repo, metadata };
}

const PARENT = pomXml('org.lib:lib-parent:7', '  <packaging>pom</packaging>\n  <licenses><license><name>The Apache License, Version 2.0</name><url>https://www.apache.org/licenses/LICENSE-2.0.txt</url></license></licenses>');
const LIB = pomXml(
  'org.lib:lib:1.2',
  `  <parent><groupId>org.lib</groupId><artifactId>lib-parent</artifactId><version>7</version></parent>
  <name>Lib</name>
  <description>Does things.</description>
  <url>https://lib.example.org</url>
  <scm><url>https://github.com/example/lib</url></scm>
  <developers><developer><id>ann</id><name>Ann Example</name><email>ann@example.org</email></developer></developers>`,
);

describe('Maven repository metadata', () => {
  it('reads the POM at the repository layout path, licenses from the parent chain', async () => {
    const { repo, metadata } = await metadataFor({ poms: { 'org.lib:lib-parent:7': PARENT, 'org.lib:lib:1.2': LIB } });
    expect(await metadata.fetch('org.lib:lib', '1.2')).toEqual({
      license: 'The Apache License, Version 2.0',
      description: 'Does things.',
      homepage: 'https://lib.example.org',
      repository: 'https://github.com/example/lib',
      author: 'Ann Example <ann@example.org>',
      deprecated: null,
      supplier: { kind: 'organization', party: 'org.lib' },
    });
    expect(repo.requests).toEqual(['/org/lib/lib/1.2/lib-1.2.pom', '/org/lib/lib-parent/7/lib-parent-7.pom']);
    // Cached per process: asking again sends nothing.
    await metadata.fetch('org.lib:lib', '1.2');
    expect(repo.requests).toHaveLength(2);
  });

  it('maps a missing POM to null and a failing repository to TransientAnalysisError', async () => {
    const { metadata } = await metadataFor({});
    expect(await metadata.fetch('org.none:none', '1.0')).toBeNull();
    const failing = await metadataFor({ status: 503 });
    await expect(failing.metadata.fetch('org.lib:lib', '1.2')).rejects.toBeInstanceOf(TransientAnalysisError);
  });
});

describe('Maven purls and versions', () => {
  it('puts type (when not jar) and classifier in qualifiers', () => {
    expect(mavenPurl({ name: 'org.a:a', version: '1.0', facts: {} })).toBe('pkg:maven/org.a/a@1.0');
    expect(mavenPurl({ name: 'org.a:a', version: '1.0', facts: { type: 'pom' } })).toBe('pkg:maven/org.a/a@1.0?type=pom');
    expect(mavenPurl({ name: 'io.netty:netty-transport-native-epoll', version: '4.1.100.Final', facts: { classifier: 'linux-x86_64' } })).toBe(
      'pkg:maven/io.netty/netty-transport-native-epoll@4.1.100.Final?classifier=linux-x86_64',
    );
    expect(mavenPurl({ name: 'nocolon', version: '1.0', facts: {} })).toBeNull();
  });

  it('orders versions as Maven does and picks the highest release in a range', () => {
    const sorted = ['1.0', '1.0-alpha-1', '1.0-beta', '1.0-rc1', '1.0-SNAPSHOT', '1.0-sp', '1.0.1', '1.10', '1.2'].sort(compareMavenVersions);
    expect(sorted).toEqual(['1.0-alpha-1', '1.0-beta', '1.0-rc1', '1.0-SNAPSHOT', '1.0', '1.0-sp', '1.0.1', '1.2', '1.10']);
    expect(compareMavenVersions('1.0', '1')).toBe(0);
    expect(compareMavenVersions('1.0.Final', '1.0')).toBe(0);
    const versions = ['0.9', '1.0', '1.5', '1.9.1', '2.0', '2.1-SNAPSHOT'];
    expect(highestInRange('[1.0,2.0)', versions)).toBe('1.9.1');
    expect(highestInRange('[1.0,2.0]', versions)).toBe('2.0');
    expect(highestInRange('[1.5]', versions)).toBe('1.5');
    expect(highestInRange('(,1.0]', versions)).toBe('1.0');
    expect(highestInRange('(,1.0),[1.2,1.6)', versions)).toBe('1.5');
    expect(highestInRange('[3.0,)', versions)).toBeNull();
  });
});
