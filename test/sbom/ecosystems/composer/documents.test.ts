import * as CDX from '@cyclonedx/cyclonedx-library';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../../../src/sbom/analyze.js';
import { composerEcosystem } from '../../../../src/ecosystems/composer/analysis.js';
import { offlineEcosystems } from '../../../../src/ecosystems/analysis.js';
import type { Ecosystem, RegistryEndpoint } from '../../../../src/ecosystems/types.js';
import { RegistryEnricher } from '../../../../src/sbom/enrich.js';
import type { InputFile, OutputFormat } from '../../../../src/model/types.js';
import { startPackagistRegistry } from '../../../helpers/packagist-registry.js';
import { registryFixtures } from '../../../helpers/registry-fixture.js';
import { officialSpdxSchema } from '../../../helpers/spdx-schema.js';
import { fixtureUpload } from '../../../helpers/ecosystem-fixtures.js';

const cdxValidator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7);
const startRegistry = registryFixtures(startPackagistRegistry);

interface CdxComponent {
  'bom-ref': string;
  name: string;
  version?: string;
  purl?: string;
  scope?: string;
  hashes?: { alg: string; content: string }[];
  licenses?: { expression?: string }[];
  description?: string;
}
interface CdxDocument {
  metadata: { component?: CdxComponent };
  properties?: { name: string; value: string }[];
  components: CdxComponent[];
  dependencies: { ref: string; dependsOn?: string[] }[];
}

function ecosystems(endpoint: RegistryEndpoint | null = null): Ecosystem[] {
  return [...offlineEcosystems().filter((e) => e.id !== 'composer'), composerEcosystem(endpoint)];
}

async function render(files: InputFile[], format: OutputFormat, eco = ecosystems(), enricher: RegistryEnricher | null = null) {
  return analyze(files, format, { ecosystems: eco, registry: enricher });
}

const property = (doc: CdxDocument, name: string): string | undefined => doc.properties?.find((p) => p.name === name)?.value;
const shop = (): InputFile[] => fixtureUpload('composer', 'shop');

describe('PHP documents', () => {
  it('CycloneDX strict-valid: one component per entry, scopes, purls, sha1 hashes, platform requirements declared', async () => {
    const result = await render(shop(), 'cyclonedx');
    expect(await cdxValidator.validate(result.document)).toBeNull();
    const doc = JSON.parse(result.document) as CdxDocument;
    expect(doc.metadata.component?.name).toBe('acme/shop');
    expect(doc.components).toHaveLength(15);
    const byName = (name: string) => doc.components.find((c) => c.name === name);
    expect(byName('phpunit/phpunit')?.scope).toBe('excluded');
    expect(byName('psr/log')?.scope).toBe('required');
    expect(byName('guzzlehttp/guzzle')?.purl).toBe('pkg:composer/guzzlehttp/guzzle@7.8.1');
    expect(byName('guzzlehttp/guzzle')?.hashes).toEqual([{ alg: 'SHA-1', content: 'c928fcf0605a0b74357c396646da4c65ac010d56' }]);
    expect(byName('acme/private-sdk')?.licenses).toEqual([{ expression: 'LGPL-2.1-only OR GPL-3.0-or-later' }]);
    const declared = JSON.parse(property(doc, 'service:declarations') ?? '[]') as { name: string; provided?: boolean }[];
    expect(declared.map((d) => d.name)).toEqual(['php', 'ext-json', 'ext-xdebug']);
    // The platform provides them: declared, and the inventory is still the lock's whole record.
    expect(declared.every((d) => d.provided === true)).toBe(true);
    expect(property(doc, 'service:completeness')).toBe('recorded_lockfile_inventory');
    const root = doc.dependencies.find((d) => d.ref === doc.metadata.component?.['bom-ref']);
    expect(root?.dependsOn).toHaveLength(8);
  });

  it('SPDX is valid against the official schema', async () => {
    const doc = JSON.parse((await render(shop(), 'spdx')).document) as unknown;
    expect(officialSpdxSchema(doc), JSON.stringify(officialSpdxSchema.errors)).toBe(true);
  });

  it('the text format names the ecosystem', async () => {
    const text = (await render(shop(), 'text')).document;
    expect(text).toMatch(/^PHP\s+psr\/log\s+3\.0\.0/m);
    expect(text).toContain('composer.lock');
  });

  it('enriches Packagist packages, the lock’s license first; path and VCS packages are not asked for', async () => {
    const { registry, endpoint } = await startRegistry({
      packages: {
        'psr/log': { tagged: [{ version: '3.0.0', description: 'Common interface for logging libraries', license: ['Apache-2.0'], homepage: 'https://github.com/php-fig/log' }] },
      },
    });
    const eco = ecosystems(endpoint);
    const client = eco.find((e) => e.id === 'composer')?.metadata;
    if (!client) throw new Error('no composer metadata client');
    const result = await render(shop(), 'cyclonedx', eco, new RegistryEnricher(new Map([['composer', client]]), null));
    const doc = JSON.parse(result.document) as CdxDocument;
    const log = doc.components.find((c) => c.name === 'psr/log');
    expect([log?.description, log?.licenses]).toEqual(['Common interface for logging libraries', [{ expression: 'MIT' }]]);
    expect(registry.requests).toContain('/p2/psr/log.json');
    expect(registry.requests.some((p) => p.includes('acme/local-tools') || p.includes('acme/private-sdk'))).toBe(false);
  });

  it('a registry answering 500 keeps the lock’s facts and names the failure', async () => {
    const { endpoint } = await startRegistry({ statusFor: () => 500 });
    const eco = ecosystems(endpoint);
    const client = eco.find((e) => e.id === 'composer')?.metadata;
    if (!client) throw new Error('no composer metadata client');
    const result = await render(shop(), 'cyclonedx', eco, new RegistryEnricher(new Map([['composer', client]]), null));
    expect(await cdxValidator.validate(result.document)).toBeNull();
    const doc = JSON.parse(result.document) as CdxDocument;
    expect(doc.components.find((c) => c.name === 'psr/log')?.licenses).toEqual([{ expression: 'MIT' }]);
    expect(property(doc, 'service:notice')).toMatch(/Registry metadata could not be fetched for [^;]*composer:psr\/log@3\.0\.0/);
  });
});
