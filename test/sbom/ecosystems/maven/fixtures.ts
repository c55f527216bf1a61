import { deps, pomXml } from '../../../helpers/maven-repository.js';

const license = (name: string) => `  <licenses><license><name>${name}</name></license></licenses>`;

/**
 * The fixture repository. Each case the rules decide, and the answer worked out by hand:
 * - parent chain: app → com.acme:acme-parent:3 → com.acme:acme-root:1 (properties, license);
 * - properties: b.version = ${lib.version} (nested, from the grandparent) = 2.0;
 * - BOM import: org.bom:platform-bom:5 manages org.m:managed at 4.2;
 * - nearest wins: n 1.0 is direct; a → n 2.0 is deeper; d → c 3.0 (depth 3) loses to c 1.0 (depth 2);
 * - first declaration breaks the tie: a → c 1.0 and b → c 2.0 are both depth 2; a is declared first;
 * - root dependencyManagement: a → x:shared 1.0 becomes 1.5;
 * - exclusion: a excludes org.ex:excluded (and a wildcard on b excludes org.w:*);
 * - optional: a → opt is not transitive; test: a → t-only is not transitive;
 * - runtime: a → rt (runtime) is runtime; junit (test) → hamcrest (compile) is test;
 * - provided: prov (provided) → prov-dep (compile) is provided;
 * - version range: ranged [1.0,2.0) among 0.9, 1.0, 1.5, 1.9.1, 2.0, 2.1-SNAPSHOT is 1.9.1;
 * - missing POM: org.missing:nopom:1.0 stays (Maven warns and keeps it), with no dependencies.
 */
export const POMS: Record<string, string> = {
  'com.acme:acme-root:1': pomXml('com.acme:acme-root:1', `  <packaging>pom</packaging>\n  <properties><lib.version>2.0</lib.version></properties>\n${license('Apache-2.0')}`),
  'com.acme:acme-parent:3': pomXml(
    'com.acme:acme-parent:3',
    '  <parent><groupId>com.acme</groupId><artifactId>acme-root</artifactId><version>1</version></parent>\n  <packaging>pom</packaging>',
  ),
  'org.bom:platform-bom:5': pomXml(
    'org.bom:platform-bom:5',
    `  <packaging>pom</packaging>\n  <dependencyManagement>\n${deps('org.m:managed:4.2')}\n  </dependencyManagement>`,
  ),
  'org.a:a:1.0': pomXml(
    'org.a:a:1.0',
    `${license('MIT')}\n${deps('org.c:c:1.0', ['org.opt:opt:1.0', '<optional>true</optional>'], 'org.t:t-only:1.0:test', 'org.ex:excluded:1.0', 'org.x:shared:1.0', 'org.r:rt:1.0:runtime', 'org.n:n:2.0')}`,
  ),
  'org.b:b-parent:1': pomXml('org.b:b-parent:1', `  <packaging>pom</packaging>\n${license('BSD-3-Clause')}`),
  'org.b:b:2.0': pomXml(
    'org.b:b:2.0',
    `  <parent><groupId>org.b</groupId><artifactId>b-parent</artifactId><version>1</version></parent>\n${deps('org.c:c:2.0', 'org.d:d:1.0', 'org.w:wild:1.0')}`,
  ),
  'org.d:d:1.0': pomXml('org.d:d:1.0', deps('org.c:c:3.0')),
  'org.c:c:1.0': pomXml('org.c:c:1.0'),
  'org.x:shared:1.5': pomXml('org.x:shared:1.5'),
  'org.r:rt:1.0': pomXml('org.r:rt:1.0'),
  'org.n:n:1.0': pomXml('org.n:n:1.0'),
  'org.m:managed:4.2': pomXml('org.m:managed:4.2'),
  'junit:junit:4.13': pomXml('junit:junit:4.13', deps('org.hamcrest:hamcrest-core:1.3')),
  'org.hamcrest:hamcrest-core:1.3': pomXml('org.hamcrest:hamcrest-core:1.3'),
  'org.range:ranged:1.9.1': pomXml('org.range:ranged:1.9.1'),
  'org.p:prov:1.0': pomXml('org.p:prov:1.0', deps('org.p:prov-dep:1.0')),
  'org.p:prov-dep:1.0': pomXml('org.p:prov-dep:1.0'),
};

export const VERSIONS = { 'org.range:ranged': ['0.9', '1.0', '1.5', '1.9.1', '2.0', '2.1-SNAPSHOT'] };

export const APP = pomXml(
  'com.acme:app:1.0.0',
  `  <parent><groupId>com.acme</groupId><artifactId>acme-parent</artifactId><version>3</version><relativePath/></parent>
  <properties><b.version>\${lib.version}</b.version></properties>
  <dependencyManagement>
    <dependencies>
      <dependency><groupId>org.bom</groupId><artifactId>platform-bom</artifactId><version>5</version><type>pom</type><scope>import</scope></dependency>
      <dependency><groupId>org.x</groupId><artifactId>shared</artifactId><version>1.5</version></dependency>
    </dependencies>
  </dependencyManagement>
${deps(
  ['org.a:a:1.0', '<exclusions><exclusion><groupId>org.ex</groupId><artifactId>excluded</artifactId></exclusion></exclusions>'],
  ['org.b:b:${b.version}', '<exclusions><exclusion><groupId>org.w</groupId><artifactId>*</artifactId></exclusion></exclusions>'],
  'org.n:n:1.0',
  'org.m:managed',
  'junit:junit:4.13:test',
  'org.range:ranged:[1.0,2.0)',
  'org.missing:nopom:1.0',
  'org.p:prov:1.0:provided',
)}`,
);

