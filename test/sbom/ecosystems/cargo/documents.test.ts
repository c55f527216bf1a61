import * as CDX from '@cyclonedx/cyclonedx-library';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../../../src/sbom/analyze.js';
import { cargoEcosystem } from '../../../../src/ecosystems/cargo/analysis.js';
import { offlineEcosystems } from '../../../../src/ecosystems/analysis.js';
import type { Ecosystem, RegistryEndpoint } from '../../../../src/ecosystems/types.js';
import { RegistryEnricher } from '../../../../src/sbom/enrich.js';
import type { InputFile, OutputFormat } from '../../../../src/model/types.js';
import { SMALL_NPM } from '../../../helpers/fixtures.js';
import { officialSpdxSchema } from '../../../helpers/spdx-schema.js';
import { GREPPER_CRATES } from './crates.js';
import { cargoUpload, cratesFixtures, packageHeaders } from './helpers.js';

const cdxValidator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7);

interface CdxComponent {
  'bom-ref': string;
  name: string;
  version?: string;
  purl?: string;
  scope?: string;
  hashes?: { alg: string; content: string }[];
  licenses?: { expression?: string; license?: { id?: string } }[];
  description?: string;
  properties?: { name: string; value: string }[];
}
interface CdxDocument {
  metadata: { component?: CdxComponent };
  properties?: { name: string; value: string }[];
  components: CdxComponent[];
  dependencies: { ref: string; dependsOn?: string[] }[];
}

const startRegistry = cratesFixtures();

function ecosystems(endpoint: RegistryEndpoint | null = null): Ecosystem[] {
  // Once Rust is registered, the offline list holds an offline one: replaced, never doubled.
  return [...offlineEcosystems().filter((e) => e.id !== 'cargo'), cargoEcosystem(endpoint)];
}

async function render(files: InputFile[], format: OutputFormat, eco = ecosystems(), enricher: RegistryEnricher | null = null) {
  return analyze(files, format, { ecosystems: eco, registry: enricher });
}

function property(doc: CdxDocument, name: string): string | undefined {
  return doc.properties?.find((p) => p.name === name)?.value;
}

describe('Rust documents', () => {
  it.each(['v1-package', 'v1-root', 'v3-workspace', 'v4-git'])('%s: CycloneDX strict-valid, one component per entry', async (set) => {
    const files = cargoUpload(set);
    const result = await render(files, 'cyclonedx');
    expect(await cdxValidator.validate(result.document)).toBeNull();
    const doc = JSON.parse(result.document) as CdxDocument;
    const lock = files.find((f) => f.path === 'Cargo.lock')?.content ?? '';
    const all = [...(doc.metadata.component ? [doc.metadata.component] : []), ...doc.components];
    const flat = (cs: CdxComponent[]): CdxComponent[] => cs.flatMap((c) => [c, ...flat((c as { components?: CdxComponent[] }).components ?? [])]);
    // Every [[package]] (and a v1 [root]) is exactly one component of the document; a virtual
    // workspace (v3-workspace) adds itself, the subject.
    expect(flat(all)).toHaveLength(packageHeaders(lock) + (lock.includes('[root]') ? 1 : 0) + (set === 'v3-workspace' ? 1 : 0));
    expect(JSON.parse(property(doc, 'service:lockfiles') ?? '[]')).toEqual([expect.objectContaining({ path: 'Cargo.lock', kind: 'Cargo.lock' })]);
  });

  it('v3 workspace: dev-only crates are excluded, purls and sha256 hashes as recorded', async () => {
    const doc = JSON.parse((await render(cargoUpload('v3-workspace'), 'cyclonedx')).document) as CdxDocument;
    const all = [...(doc.metadata.component ? [doc.metadata.component] : []), ...doc.components];
    const byName = (name: string) => all.filter((c) => c.name === name);
    expect(byName('pretty_assertions')[0]?.scope).toBe('excluded');
    expect(byName('tracing')[0]?.scope).toBe('optional');
    expect(byName('log')[0]?.scope).toBe('required');
    expect(byName('rand').map((c) => c.purl).sort()).toEqual(['pkg:cargo/rand@0.7.3', 'pkg:cargo/rand@0.8.5']);
    expect(byName('log')[0]?.hashes?.[0]?.alg).toBe('SHA-256');
    expect(byName('log')[0]?.hashes?.[0]?.content).toMatch(/^[0-9a-f]{64}$/);
    expect(byName('patched-log')[0]?.purl).toBeUndefined();
    const app = byName('tiles-app')[0];
    const deps = doc.dependencies.find((d) => d.ref === app?.['bom-ref'])?.dependsOn ?? [];
    expect(deps).toHaveLength(10);
  });

  it('SPDX is valid against the official schema', async () => {
    for (const set of ['v1-package', 'v1-root', 'v3-workspace', 'v4-git']) {
      const files = cargoUpload(set);
      const doc = JSON.parse((await render(files, 'spdx')).document) as unknown;
      expect(officialSpdxSchema(doc), `${set}: ${JSON.stringify(officialSpdxSchema.errors)}`).toBe(true);
    }
  });

  it('the package beside Cargo.lock is the document’s subject, not a member listed before it', async () => {
    const files: InputFile[] = [
      { path: 'Cargo.toml', content: '[package]\nname = "zeta-app"\nversion = "2.0.0"\n\n[workspace]\nmembers = ["crates/*"]\n\n[dependencies]\nalpha-lib = { path = "crates/alpha-lib" }\n' },
      { path: 'crates/alpha-lib/Cargo.toml', content: '[package]\nname = "alpha-lib"\nversion = "2.0.0"\n' },
      { path: 'Cargo.lock', content: 'version = 4\n\n[[package]]\nname = "alpha-lib"\nversion = "2.0.0"\n\n[[package]]\nname = "zeta-app"\nversion = "2.0.0"\ndependencies = [\n "alpha-lib",\n]\n' },
    ];
    const doc = JSON.parse((await render(files, 'cyclonedx')).document) as CdxDocument;
    expect([doc.metadata.component?.name, doc.metadata.component?.version]).toEqual(['zeta-app', '2.0.0']);
    expect(doc.components.map((c) => [c.name, (c as { type?: string }).type])).toEqual([['alpha-lib', 'application']]);
  });

  it('the text format names the ecosystem', async () => {
    const text = (await render(cargoUpload('v4-git'), 'text')).document;
    expect(text).toMatch(/^Rust\s+bytes\s+1\.5\.0/m);
    expect(text).toContain('lockfile:         Cargo.lock (Cargo.lock 4, 9 entries)');
  });

  it('a polyglot upload gives one document with both ecosystems', async () => {
    const files = [...SMALL_NPM(), ...cargoUpload('v4-git').map((f) => ({ ...f, path: `native/${f.path}` }))];
    const result = await render(files, 'cyclonedx');
    expect(await cdxValidator.validate(result.document)).toBeNull();
    const doc = JSON.parse(result.document) as CdxDocument;
    const types = new Set(doc.components.map((c) => c.purl?.split('/')[0]).filter((t) => t !== undefined));
    expect([...types].sort()).toEqual(['pkg:cargo', 'pkg:npm']);
    const lockfiles = JSON.parse(property(doc, 'service:lockfiles') ?? '[]') as { path: string }[];
    expect(lockfiles.map((l) => l.path).sort()).toEqual(['native/Cargo.lock', 'package-lock.json']);
  });

  it('enriches crates.io crates from the registry, never the crate of another registry', async () => {
    const { registry, endpoint } = await startRegistry({
      crates: {
        bytes: { description: 'Types and traits for working with bytes', repository: 'https://github.com/tokio-rs/bytes', versions: { '1.5.0': { license: 'MIT' } } },
        'internal-auth': { versions: { '2.0.1': { license: 'GPL-3.0-only' } } },
      },
    });
    const eco = ecosystems(endpoint);
    const client = eco.find((e) => e.id === 'cargo')?.metadata;
    if (!client) throw new Error('no cargo metadata client');
    const result = await render(cargoUpload('v4-git'), 'cyclonedx', eco, new RegistryEnricher(new Map([['cargo', client]]), null));
    const doc = JSON.parse(result.document) as CdxDocument;
    const bytes = doc.components.find((c) => c.name === 'bytes');
    expect(bytes?.licenses).toEqual([{ expression: 'MIT' }]);
    expect(bytes?.description).toBe('Types and traits for working with bytes');
    expect(doc.components.find((c) => c.name === 'internal-auth')?.licenses).toBeUndefined();
    expect(registry.requests).not.toContain('/api/v1/crates/internal-auth/2.0.1');
    // The git crate is not a registry coordinate either.
    expect(registry.requests.filter((p) => p.startsWith('/api/v1/crates/hyper-util/'))).toEqual(['/api/v1/crates/hyper-util/0.1.3']);
  });

  it('a registry answering 500 keeps the lockfile’s facts and names the failure in the notice', async () => {
    const { endpoint } = await startRegistry({ statusFor: () => 500 });
    const eco = ecosystems(endpoint);
    const client = eco.find((e) => e.id === 'cargo')?.metadata;
    if (!client) throw new Error('no cargo metadata client');
    const result = await render(cargoUpload('v4-git'), 'cyclonedx', eco, new RegistryEnricher(new Map([['cargo', client]]), null));
    expect(await cdxValidator.validate(result.document)).toBeNull();
    const doc = JSON.parse(result.document) as CdxDocument;
    expect(doc.components.filter((c) => c.name !== 'fetcher')).toHaveLength(9);
    expect(property(doc, 'service:notice')).toContain('Registry metadata could not be fetched for cargo:bytes@1.5.0');
  });

  it('a Cargo.toml alone is resolved against crates.io into a valid document, its git and path requirements declared', async () => {
    const { endpoint } = await startRegistry({ crates: GREPPER_CRATES });
    const result = await render(cargoUpload('manifest-only'), 'cyclonedx', ecosystems(endpoint));
    expect(await cdxValidator.validate(result.document)).toBeNull();
    const doc = JSON.parse(result.document) as CdxDocument;
    expect(property(doc, 'service:completeness')).toBe('partial_manifest_inventory');
    expect(property(doc, 'service:resolution_basis')).toBe('manifest_resolution');
    expect(JSON.parse(property(doc, 'service:declarations') ?? '[]')).toHaveLength(2);
    expect(doc.components.find((c) => c.name === 'tempfile')?.scope).toBe('excluded');
    expect(doc.components.find((c) => c.name === 'regex')?.purl).toBe('pkg:cargo/regex@1.10.4');
  });
});
