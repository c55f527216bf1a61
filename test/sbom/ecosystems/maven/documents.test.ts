import * as CDX from '@cyclonedx/cyclonedx-library';
import { afterEach, describe, expect, it } from 'vitest';
import { analyze } from '../../../../src/sbom/analyze.js';
import { offlineEcosystems } from '../../../../src/ecosystems/analysis.js';
import { mavenEcosystem } from '../../../../src/ecosystems/maven/analysis.js';
import { RegistryEnricher } from '../../../../src/sbom/enrich.js';
import type { MetadataClient } from '../../../../src/model/enrich-types.js';
import { registryHttp } from '../../../../src/ecosystems/shared/http.js';
import { spdxProblems } from '../../../../src/sbom/validate/spdx.js';
import { startMavenRepository } from '../../../helpers/maven-repository.js';
import { officialSpdxSchema } from '../../../helpers/spdx-schema.js';
import { APP, POMS, VERSIONS } from './fixtures.js';

const cdxValidator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7);

interface Component {
  name: string;
  group?: string;
  version?: string;
  purl?: string;
  scope?: string;
  licenses?: unknown[];
  externalReferences?: { type: string; url: string }[];
}
interface Bom {
  components: Component[];
  properties: { name: string; value: string }[];
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const LOCK = `# This is a Gradle generated file for dependency locking.
com.google.guava:guava:33.2.1-jre=compileClasspath,runtimeClasspath
org.junit.jupiter:junit-jupiter-api:5.10.3=testCompileClasspath
com.puppycrawl.tools:checkstyle:10.17.0=checkstyle
empty=annotationProcessor
`;

describe('JVM documents', () => {
  it('renders a resolved Maven project as strictly valid CycloneDX and valid SPDX, with licenses from the POMs', async () => {
    const repo = await startMavenRepository({ poms: POMS, versions: VERSIONS });
    const http = registryHttp({ retries: 0 });
    open.push(http, repo);
    const maven = mavenEcosystem({ base: repo.url, http });
    const ecosystems = offlineEcosystems().map((e) => (e.id === 'maven' ? maven : e));
    const registry = new RegistryEnricher(new Map<string, MetadataClient>([['maven', maven.metadata!]]), null);
    const files = [{ path: 'pom.xml', content: APP }];
    const { document } = await analyze(files, 'cyclonedx', { ecosystems, registry });
    expect(await cdxValidator.validate(document)).toBeNull();
    const bom = JSON.parse(document) as Bom;
    const purls = bom.components.map((c) => c.purl).filter((p): p is string => p !== undefined);
    expect(purls).toContain('pkg:maven/org.a/a@1.0');
    expect(purls).toContain('pkg:maven/org.range/ranged@1.9.1');
    expect(bom.components.find((c) => c.purl === 'pkg:maven/junit/junit@4.13')?.scope).toBe('excluded');
    expect(bom.components.find((c) => c.purl === 'pkg:maven/org.a/a@1.0')?.scope).toBe('required');
    expect(JSON.stringify(bom.components.find((c) => c.purl === 'pkg:maven/org.b/b@2.0')?.licenses)).toContain('BSD-3-Clause');
    expect(bom.properties.find((p) => p.name === 'service:completeness')?.value).toBe('resolved_manifest_inventory');
    const spdx = JSON.parse((await analyze(files, 'spdx', { ecosystems, registry })).document) as unknown;
    expect(officialSpdxSchema(spdx)).toBe(true);
    expect(spdxProblems(spdx)).toEqual({ schema: [], content: [] });
  });

  it('renders an offline Maven project as a partial inventory naming the unresolved manifest', async () => {
    const { document } = await analyze([{ path: 'pom.xml', content: APP }], 'cyclonedx', { ecosystems: offlineEcosystems() });
    expect(await cdxValidator.validate(document)).toBeNull();
    const bom = JSON.parse(document) as Bom;
    expect(bom.properties.find((p) => p.name === 'service:completeness')?.value).toBe('partial_manifest_inventory');
    expect(bom.properties.find((p) => p.name === 'service:resolutions')?.value).toContain('resolution_failed');
    expect(bom.properties.find((p) => p.name === 'service:declarations')?.value).toContain('org.m:managed');
    expect(bom.properties.find((p) => p.name === 'service:notice')?.value).toMatch(/^No lockfile records the dependencies and no manifest was resolved/);
  });

  it('renders a Gradle lockfile with maven purls, scopes and no scope for tool configurations', async () => {
    const files = [{ path: 'gradle.lockfile', content: LOCK }];
    const { document } = await analyze(files, 'cyclonedx', { ecosystems: offlineEcosystems() });
    expect(await cdxValidator.validate(document)).toBeNull();
    const bom = JSON.parse(document) as Bom;
    const scopeOf = (purl: string) => bom.components.find((c) => c.purl === purl)?.scope;
    expect(scopeOf('pkg:maven/com.google.guava/guava@33.2.1-jre')).toBe('required');
    expect(scopeOf('pkg:maven/org.junit.jupiter/junit-jupiter-api@5.10.3')).toBe('excluded');
    expect(scopeOf('pkg:maven/com.puppycrawl.tools/checkstyle@10.17.0')).toBeUndefined();
    const spdx = JSON.parse((await analyze(files, 'spdx', { ecosystems: offlineEcosystems() })).document) as unknown;
    expect(officialSpdxSchema(spdx)).toBe(true);
    expect(spdxProblems(spdx)).toEqual({ schema: [], content: [] });
  });
});
