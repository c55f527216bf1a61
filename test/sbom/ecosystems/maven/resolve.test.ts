import { afterEach, describe, expect, it } from 'vitest';
import { registryHttp } from '../../../../src/ecosystems/shared/http.js';
import { deps, pomXml, startMavenRepository, type MavenRepositoryOptions } from '../../../helpers/maven-repository.js';
import { APP, POMS, VERSIONS } from './fixtures.js';
import { mavenEcosystem } from '../../../../src/ecosystems/maven/analysis.js';
import { buildThrough } from '../../../helpers/ecosystem.js';
import { buildJvm, components, scoped } from './helpers.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function repository(options: MavenRepositoryOptions) {
  const repo = await startMavenRepository(options);
  const http = registryHttp({ retries: 0, timeoutMs: 10_000 });
  open.push(http, repo);
  return { repo, endpoint: { base: repo.url, http } };
}

describe('Maven resolution against a repository', () => {
  it('gives the set Maven’s rules give, worked out by hand', async () => {
    const { endpoint } = await repository({ poms: POMS, versions: VERSIONS });
    const result = await buildJvm([{ path: 'pom.xml', content: APP }], endpoint);
    expect(scoped(result)).toEqual(
      [
        'org.a:a:1.0',
        'org.c:c:1.0',
        'org.x:shared:1.5',
        'org.r:rt:1.0',
        'org.b:b:2.0',
        'org.d:d:1.0',
        'org.n:n:1.0',
        'org.m:managed:4.2',
        'junit:junit:4.13 dev',
        'org.hamcrest:hamcrest-core:1.3 dev',
        'org.range:ranged:1.9.1',
        'org.missing:nopom:1.0',
        'org.p:prov:1.0 dev',
        'org.p:prov-dep:1.0 dev',
      ].sort(),
    );
    const byName = new Map(components(result).map((o) => [o.name, o]));
    expect(byName.get('org.r:rt')?.facts['maven_scope']).toBe('runtime');
    expect(byName.get('org.hamcrest:hamcrest-core')?.facts['maven_scope']).toBe('test');
    expect(byName.get('org.p:prov-dep')?.facts['maven_scope']).toBe('provided');
    // Licenses: the artifact's own, else its parent chain's.
    expect(byName.get('org.a:a')?.license).toBe('MIT');
    expect(byName.get('org.b:b')?.license).toBe('BSD-3-Clause');
    // Edges as resolved: a → c, shared, rt (n's winner is the direct 1.0); d → nothing (c 3.0 lost, but the winner is c 1.0).
    const refOf = (name: string) => byName.get(name)?.ref;
    expect(byName.get('org.a:a')?.dependencies.map((e) => e.ref).sort()).toEqual([refOf('org.c:c'), refOf('org.x:shared'), refOf('org.r:rt'), refOf('org.n:n')].sort());
    expect(byName.get('org.d:d')?.dependencies.map((e) => e.ref)).toEqual([refOf('org.c:c')]);
    expect(result.inventory.resolutions).toEqual([{ manifest: 'pom.xml', outcome: 'resolved', detail: null }]);
    expect(result.inventory.notices.some((n) => n.includes('org.missing:nopom:1.0 is missing'))).toBe(true);
    expect(result.inventory.declarations).toEqual([]);
  });

  it('marks what only a direct optional dependency brings as optional too', async () => {
    const { endpoint } = await repository({ poms: { 'org.o:o:1.0': pomXml('org.o:o:1.0', deps('org.o:o-child:1.0')), 'org.o:o-child:1.0': pomXml('org.o:o-child:1.0') } });
    const project = pomXml('com.acme:opt:1', deps(['org.o:o:1.0', '<optional>true</optional>']));
    expect(scoped(await buildJvm([{ path: 'pom.xml', content: project }], endpoint))).toEqual(['org.o:o-child:1.0 optional', 'org.o:o:1.0 optional']);
  });

  it('lists a direct dependency whose range no release satisfies as a declaration, never a component', async () => {
    const { endpoint } = await repository({ versions: { 'org.r:r': ['1.0', '1.1'] } });
    const project = pomXml('com.acme:r:1', deps('org.r:r:[2.0,3.0)'));
    const result = await buildJvm([{ path: 'pom.xml', content: project }], endpoint);
    expect(components(result)).toEqual([]);
    expect(result.inventory.declarations).toEqual([{ manifest: 'pom.xml', name: 'org.r:r', range: '[2.0,3.0)', kind: 'compile', ecosystem: 'maven' }]);
    expect(result.inventory.notices).toContain('pom.xml: org.r:r: no release in [2.0,3.0)');
  });

  it('lets the project’s dependencyManagement set a transitive dependency’s scope, not its transitivity', async () => {
    const { endpoint } = await repository({
      poms: {
        'org.k:k:1.0': pomXml('org.k:k:1.0', deps('org.k:servlet-api:3.0', 'org.k:only-test:1.0:test')),
        'org.k:servlet-api:3.0': pomXml('org.k:servlet-api:3.0'),
      },
    });
    const project = pomXml(
      'com.acme:m:1',
      `  <dependencyManagement>
${deps('org.k:servlet-api:3.0:provided', 'org.k:only-test:1.0:compile')}
  </dependencyManagement>
${deps('org.k:k:1.0')}`,
    );
    // servlet-api: compile under k, managed to provided → provided (dev); only-test: test in k's POM → not transitive at all.
    expect(scoped(await buildJvm([{ path: 'pom.xml', content: project }], endpoint))).toEqual(['org.k:k:1.0', 'org.k:servlet-api:3.0 dev']);
  });

  it('keeps a dependency whose POM the repository serves broken, without its dependencies; a broken parent fails the manifest', async () => {
    const { endpoint } = await repository({ poms: { 'org.z:z:1.0': '<project><dependencies>' } });
    const result = await buildJvm([{ path: 'pom.xml', content: pomXml('com.acme:z:1', deps('org.z:z:1.0')) }], endpoint);
    expect(scoped(result)).toEqual(['org.z:z:1.0']);
    expect(result.inventory.notices.some((n) => n.startsWith('pom.xml: the POM of org.z:z:1.0 could not be read'))).toBe(true);
    const child = pomXml('com.acme:c:1', '  <parent><groupId>org.z</groupId><artifactId>z</artifactId><version>1.0</version><relativePath/></parent>');
    const failed = await buildJvm([{ path: 'pom.xml', content: child }], endpoint);
    expect(failed.inventory.resolutions[0]?.outcome).toBe('resolution_failed');
    expect(failed.inventory.resolutions[0]?.detail).toMatch(/^a POM from the repository could not be read/);
  });

  it('caches POMs per process: a second analysis of the same project sends no request', async () => {
    const { repo, endpoint } = await repository({ poms: POMS, versions: VERSIONS });
    const maven = mavenEcosystem(endpoint);
    const first = await buildThrough(maven, [{ path: 'pom.xml', content: APP }]);
    const sent = repo.requests.length;
    expect(sent).toBeGreaterThan(0);
    const second = await buildThrough(maven, [{ path: 'pom.xml', content: APP }]);
    expect(repo.requests).toHaveLength(sent);
    expect(scoped(second)).toEqual(scoped(first));
  });

  it('keeps the declarations it can determine, unresolved, when the repository answers 500', async () => {
    const { endpoint } = await repository({ status: 500 });
    const result = await buildJvm([{ path: 'pom.xml', content: APP }], endpoint);
    expect(result.inventory.resolutions).toEqual([{ manifest: 'pom.xml', outcome: 'resolution_failed', detail: 'the Maven repository could not be reached' }]);
    // Exact versions the upload states are components; the rest (a parent's property, a BOM's version, a range) are declarations.
    expect(scoped(result)).toEqual(['junit:junit:4.13 dev', 'org.a:a:1.0', 'org.missing:nopom:1.0', 'org.n:n:1.0', 'org.p:prov:1.0 dev']);
    expect(result.inventory.declarations.map((d) => `${d.name} ${d.range}`).sort()).toEqual(['org.b:b ${lib.version}', 'org.m:managed ', 'org.range:ranged [1.0,2.0)']);
  });

  it('says resolution_timeout when the repository does not answer before the deadline', async () => {
    const { endpoint } = await repository({ hang: true });
    const result = await buildJvm([{ path: 'pom.xml', content: APP }], endpoint, { resolutionTimeoutMs: 150 });
    expect(result.inventory.resolutions.map((r) => r.outcome)).toEqual(['resolution_timeout']);
    expect(components(result).map((o) => o.name)).toContain('org.a:a');
  });

  it('fails the manifest, naming it, when its parent POM is missing', async () => {
    const poms = Object.fromEntries(Object.entries(POMS).filter(([k]) => k !== 'com.acme:acme-parent:3'));
    const { endpoint } = await repository({ poms, versions: VERSIONS });
    const result = await buildJvm([{ path: 'pom.xml', content: APP }], endpoint);
    expect(result.inventory.resolutions).toEqual([{ manifest: 'pom.xml', outcome: 'resolution_failed', detail: 'com.acme:acme-parent:3 could not be found in the repository' }]);
  });

  it('stops at the POM limit and reports it', async () => {
    const { endpoint } = await repository({ poms: POMS, versions: VERSIONS });
    const result = await buildJvm([{ path: 'pom.xml', content: APP }], endpoint, { maxPoms: 3 });
    expect(result.inventory.resolutions[0]?.outcome).toBe('resolution_failed');
    expect(result.inventory.resolutions[0]?.detail).toMatch(/more than 3 POMs/);
  });
});
