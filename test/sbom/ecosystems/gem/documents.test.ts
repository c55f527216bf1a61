import * as CDX from '@cyclonedx/cyclonedx-library';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../../../src/sbom/analyze.js';
import { gemEcosystem } from '../../../../src/ecosystems/gem/analysis.js';
import { offlineEcosystems } from '../../../../src/ecosystems/analysis.js';
import type { Ecosystem, RegistryEndpoint } from '../../../../src/ecosystems/types.js';
import { RegistryEnricher } from '../../../../src/sbom/enrich.js';
import type { InputFile, OutputFormat } from '../../../../src/model/types.js';
import { SMALL_NPM } from '../../../helpers/fixtures.js';
import { registryFixtures } from '../../../helpers/registry-fixture.js';
import { startRubygemsRegistry } from '../../../helpers/rubygems-registry.js';
import { officialSpdxSchema } from '../../../helpers/spdx-schema.js';
import { fixtureUpload } from '../../../helpers/ecosystem-fixtures.js';
import { specLines } from './helpers.js';

const cdxValidator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7);
const startRegistry = registryFixtures(startRubygemsRegistry);

interface CdxComponent {
  'bom-ref': string;
  name: string;
  version?: string;
  purl?: string;
  scope?: string;
  hashes?: { alg: string; content: string }[];
  licenses?: { expression?: string; license?: { id?: string; name?: string } }[];
  description?: string;
}
interface CdxDocument {
  metadata: { component?: CdxComponent };
  properties?: { name: string; value: string }[];
  components: CdxComponent[];
  dependencies: { ref: string; dependsOn?: string[] }[];
}

function ecosystems(endpoint: RegistryEndpoint | null = null): Ecosystem[] {
  return [...offlineEcosystems().filter((e) => e.id !== 'gem'), gemEcosystem(endpoint)];
}

async function render(files: InputFile[], format: OutputFormat, eco = ecosystems(), enricher: RegistryEnricher | null = null) {
  return analyze(files, format, { ecosystems: eco, registry: enricher });
}

const property = (doc: CdxDocument, name: string): string | undefined => doc.properties?.find((p) => p.name === name)?.value;

describe('Ruby documents', () => {
  it.each(['rails-app', 'gem-project'])('%s: CycloneDX strict-valid, one component per spec', async (set) => {
    const files = fixtureUpload('gem', set);
    const result = await render(files, 'cyclonedx');
    expect(await cdxValidator.validate(result.document)).toBeNull();
    const doc = JSON.parse(result.document) as CdxDocument;
    const lock = files.find((f) => f.path.endsWith('.lock') || f.path.endsWith('.locked'))?.content ?? '';
    const roots = set === 'gem-project' ? 1 : 0;
    expect(doc.components).toHaveLength(specLines(lock) - roots);
    expect(property(doc, 'service:completeness')).toBe('recorded_lockfile_inventory');
  });

  it('scopes, platform purls and hashes as the files record them', async () => {
    const doc = JSON.parse((await render(fixtureUpload('gem', 'rails-app'), 'cyclonedx')).document) as CdxDocument;
    const byPurl = (purl: string) => doc.components.find((c) => c.purl === purl);
    expect(byPurl('pkg:gem/nokogiri@1.16.2?platform=arm64-darwin')?.scope).toBe('required');
    expect(byPurl('pkg:gem/nokogiri@1.16.2?platform=arm64-darwin')?.hashes?.[0]).toEqual({ alg: 'SHA-256', content: '2c3b7cd2f8b6c1c5c9b0a2f4f7a2e1d3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5' });
    expect(byPurl('pkg:gem/capybara@3.40.0')?.scope).toBe('excluded');
    const gemOnly = JSON.parse((await render(fixtureUpload('gem', 'gem-project', ['gems.locked']), 'cyclonedx')).document) as CdxDocument;
    expect(gemOnly.metadata.component?.name).toBe('widget');
    // A lockfile alone states no scope.
    expect(gemOnly.components.every((c) => c.scope === undefined)).toBe(true);
  });

  it('SPDX is valid against the official schema', async () => {
    for (const set of ['rails-app', 'gem-project']) {
      const doc = JSON.parse((await render(fixtureUpload('gem', set), 'spdx')).document) as unknown;
      expect(officialSpdxSchema(doc), `${set}: ${JSON.stringify(officialSpdxSchema.errors)}`).toBe(true);
    }
  });

  it('the text format names the ecosystem', async () => {
    const text = (await render(fixtureUpload('gem', 'gem-project'), 'text')).document;
    expect(text).toMatch(/^Ruby\s+faraday\s+2\.9\.0/m);
    expect(text).toContain('gems.locked');
  });

  it('a Gemfile.lock beside a package-lock.json gives one document of both, recorded', async () => {
    const files = [...SMALL_NPM(), ...fixtureUpload('gem', 'rails-app').map((f) => ({ ...f, path: `backend/${f.path}` }))];
    const result = await render(files, 'cyclonedx');
    expect(await cdxValidator.validate(result.document)).toBeNull();
    const doc = JSON.parse(result.document) as CdxDocument;
    const types = new Set(doc.components.map((c) => c.purl?.split('/')[0]).filter((t) => t !== undefined));
    expect([...types].sort()).toEqual(['pkg:gem', 'pkg:npm']);
    expect(property(doc, 'service:completeness')).toBe('recorded_lockfile_inventory');
    const lockfiles = JSON.parse(property(doc, 'service:lockfiles') ?? '[]') as { path: string }[];
    expect(lockfiles.map((l) => l.path).sort()).toEqual(['backend/Gemfile.lock', 'package-lock.json']);
  });

  it('enriches rubygems.org gems once per version, never a gem of another server, a git or a path gem', async () => {
    const { registry, endpoint } = await startRegistry({
      gems: { nokogiri: { '1.16.2': { licenses: ['MIT'], info: 'HTML, XML, SAX, and Reader parser' } }, 'sidekiq-pro': { '7.2.0': { licenses: ['LGPL-3.0-only'] } } },
    });
    const eco = ecosystems(endpoint);
    const client = eco.find((e) => e.id === 'gem')?.metadata;
    if (!client) throw new Error('no gem metadata client');
    const result = await render(fixtureUpload('gem', 'rails-app'), 'cyclonedx', eco, new RegistryEnricher(new Map([['gem', client]]), null));
    const doc = JSON.parse(result.document) as CdxDocument;
    const nokogiri = doc.components.filter((c) => c.name === 'nokogiri');
    expect(nokogiri.map((c) => [c.licenses, c.description])).toEqual(Array(3).fill([[{ expression: 'MIT' }], 'HTML, XML, SAX, and Reader parser']));
    expect(registry.requests.filter((p) => p.includes('/nokogiri/'))).toEqual(['/api/v2/rubygems/nokogiri/versions/1.16.2.json']);
    for (const other of ['sidekiq-pro', 'rubocop-acme', 'billing', 'acme-sdk']) expect(registry.requests.some((p) => p.includes(`/${other}/`))).toBe(false);
  });

  it('a registry answering 500 keeps the lockfile’s facts and names the failure in the notice', async () => {
    const { endpoint } = await startRegistry({ statusFor: () => 500 });
    const eco = ecosystems(endpoint);
    const client = eco.find((e) => e.id === 'gem')?.metadata;
    if (!client) throw new Error('no gem metadata client');
    const result = await render(fixtureUpload('gem', 'gem-project'), 'cyclonedx', eco, new RegistryEnricher(new Map([['gem', client]]), null));
    expect(await cdxValidator.validate(result.document)).toBeNull();
    const doc = JSON.parse(result.document) as CdxDocument;
    expect(doc.components).toHaveLength(11);
    expect(property(doc, 'service:notice')).toMatch(/Registry metadata could not be fetched for [^;]*gem:faraday@2\.9\.0/);
  });
});
