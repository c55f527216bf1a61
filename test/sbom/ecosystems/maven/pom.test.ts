import { describe, expect, it } from 'vitest';
import { claimJvmFile } from '../../../../src/ecosystems/maven/detect.js';
import { mavenEcosystem } from '../../../../src/ecosystems/maven/analysis.js';
import { parsePom } from '../../../../src/ecosystems/maven/parse-pom.js';
import { deps, pomXml } from '../../../helpers/maven-repository.js';
import { buildJvm, components, rootsOf, scoped } from './helpers.js';

/**
 * A reactor written for these tests in the shape of real multi-module builds: a parent with
 * `<modules>`, properties, dependencyManagement (own entries and an imported BOM), and modules
 * inheriting from it by the default relativePath.
 */
const PARENT = pomXml(
  'org.sample:sample-parent:2.1.0-SNAPSHOT',
  `  <packaging>pom</packaging>
  <modules><module>core</module><module>extras</module></modules>
  <properties><guava.version>33.0.0-jre</guava.version><junit.version>4.13.2</junit.version></properties>
  <licenses><license><name>Apache-2.0</name></license></licenses>
  <dependencyManagement>
    <dependencies>
      <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>\${junit.version}</version></dependency>
      <dependency><groupId>org.junit</groupId><artifactId>junit-bom</artifactId><version>5.10.0</version><type>pom</type><scope>import</scope></dependency>
    </dependencies>
  </dependencyManagement>`,
);

const module = (artifact: string, inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>org.sample</groupId><artifactId>sample-parent</artifactId><version>2.1.0-SNAPSHOT</version></parent>
  <artifactId>${artifact}</artifactId>
${inner}
</project>
`;

const CORE = module(
  'sample-core',
  `${deps('com.google.guava:guava:${guava.version}', 'junit:junit::test', 'org.junit.jupiter:junit-jupiter::test', ['javax.annotation:jsr250-api:1.0', '<optional>true</optional>'], 'org.x:tool:1.2:provided')}
  <profiles>
    <profile><id>default</id><activation><activeByDefault>true</activeByDefault></activation>${deps('org.p:by-default:3.0')}</profile>
    <profile><id>ci</id><activation><property><name>env.CI</name></property></activation>${deps('org.p:only-ci:1.0')}</profile>
  </profiles>`,
);

const EXTRAS = module('sample-extras', deps('org.sample:sample-core:${project.parent.version}', 'com.google.guava:guava:${guava.version}:test', 'org.e:env:${env.HOME}'));

const FILES = [
  { path: 'pom.xml', content: PARENT },
  { path: 'core/pom.xml', content: CORE },
  { path: 'extras/pom.xml', content: EXTRAS },
];

describe('Maven POMs offline (no repository)', () => {
  it('makes every module a root, with inherited coordinates and licenses', async () => {
    const result = await buildJvm(FILES);
    expect(rootsOf(result).map((o) => `${o.name}@${o.version ?? '-'} ${o.installPath || '.'} ${o.license ?? '-'}`)).toEqual([
      'org.sample:sample-parent@2.1.0-SNAPSHOT . Apache-2.0',
      'org.sample:sample-core@2.1.0-SNAPSHOT core Apache-2.0',
      'org.sample:sample-extras@2.1.0-SNAPSHOT extras Apache-2.0',
    ]);
  });

  it('lists declared direct dependencies with the versions the upload states; the rest are declarations', async () => {
    const result = await buildJvm(FILES);
    // guava: compile in core, test in extras → the strongest (shipped). Profiles: only activeByDefault.
    expect(scoped(result)).toEqual([
      'com.google.guava:guava:33.0.0-jre',
      'javax.annotation:jsr250-api:1.0 optional',
      'junit:junit:4.13.2 dev',
      'org.p:by-default:3.0',
      'org.x:tool:1.2 dev',
    ]);
    expect(components(result).every((o) => o.facts['maven_resolution'] === 'declared')).toBe(true);
    // A BOM-managed version (the BOM is not uploaded) and an environment property are unknown.
    expect(result.inventory.declarations.map((d) => `${d.manifest} ${d.name} ${d.range} ${d.kind}`).sort()).toEqual([
      'core/pom.xml org.junit.jupiter:junit-jupiter  test',
      'extras/pom.xml org.e:env ${env.HOME} compile',
    ]);
    expect(result.inventory.resolutions.map((r) => `${r.manifest} ${r.outcome}`)).toEqual(['pom.xml resolution_failed', 'core/pom.xml resolution_failed', 'extras/pom.xml resolution_failed']);
  });

  it('names a listed module whose POM was not uploaded', async () => {
    const result = await buildJvm(FILES.slice(0, 2));
    expect(result.inventory.notices).toContain('pom.xml lists module(s) whose POM was not uploaded, so they are not in the inventory: extras');
  });

  it('makes a dependency on another module an edge between roots, never a component', async () => {
    const result = await buildJvm(FILES);
    const [, core, extras] = rootsOf(result);
    expect(components(result).some((o) => o.name === 'org.sample:sample-core')).toBe(false);
    expect(extras?.dependencies.map((e) => e.ref)).toContain(core?.ref);
  });

  it('reads parent, properties, modules and metadata as written', () => {
    const pom = parsePom(PARENT);
    expect(pom.modules).toEqual(['core', 'extras']);
    expect(pom.properties.get('guava.version')).toBe('33.0.0-jre');
    expect(pom.dependencyManagement.map((d) => `${d.artifactId}:${d.scope ?? ''}:${d.type}`)).toEqual(['junit::jar', 'junit-bom:import:pom']);
    expect(parsePom(CORE).parent).toEqual({ groupId: 'org.sample', artifactId: 'sample-parent', version: '2.1.0-SNAPSHOT', relativePath: null });
  });

  it('claims POMs by name and renamed ones by content, never a NuGet <Project>', () => {
    expect(claimJvmFile({ path: 'a/pom.xml', content: '' })?.kind).toBe('maven-pom');
    expect(claimJvmFile({ path: 'lib-1.0.pom', content: PARENT })).toEqual({ kind: 'maven-pom', role: 'manifest', by: 'content' });
    expect(claimJvmFile({ path: 'x.csproj.xml', content: '<Project Sdk="Microsoft.NET.Sdk"></Project>' })).toBeNull();
  });

  it('keeps type and classifier: two artifacts of one module are two components with qualified purls', async () => {
    const pom = pomXml(
      'org.q:q:1',
      deps(
        'io.netty:netty-transport-native-epoll:4.1.100.Final',
        ['io.netty:netty-transport-native-epoll:4.1.100.Final', '<classifier>linux-x86_64</classifier>'],
        ['org.b:bom-like:2.0', '<type>pom</type>'],
      ),
    );
    const result = await buildJvm([{ path: 'pom.xml', content: pom }]);
    const eco = mavenEcosystem(null);
    expect(components(result).map((o) => eco.purl(o))).toEqual([
      'pkg:maven/io.netty/netty-transport-native-epoll@4.1.100.Final',
      'pkg:maven/io.netty/netty-transport-native-epoll@4.1.100.Final?classifier=linux-x86_64',
      'pkg:maven/org.b/bom-like@2.0?type=pom',
    ]);
  });

  it('reports a malformed POM as a problem naming the file', async () => {
    const result = await buildJvm([{ path: 'pom.xml', content: '<project><dependencies><dependency><groupId>a</groupId></dependency></dependencies></project>' }]);
    expect(result.problems).toEqual([{ path: 'pom.xml', reason: 'malformed', message: '<project> has no artifactId' }]);
  });
});
