import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as CDX from '@cyclonedx/cyclonedx-library';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/sbom/analyze.js';
import { integrityChecksums, normalizeLicense } from '../../src/sbom/describe.js';
import { withLinearHashCheck } from '../../src/sbom/render/cyclonedx.js';
import { spdxProblems, validateSpdx } from '../../src/sbom/validate/spdx.js';
import type { InputFile, OutputFormat } from '../../src/model/types.js';
import { upload } from '../helpers/fixtures.js';
import { officialSpdxSchema } from '../helpers/spdx-schema.js';

const cdxValidator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7);

type Json = Record<string, unknown>;
interface CdxComponent {
  'bom-ref': string;
  type?: string;
  name: string;
  group?: string;
  version?: string;
  purl?: string;
  scope?: string;
  hashes?: { alg: string; content: string }[];
  licenses?: ({ expression: string } | { license: { name?: string; id?: string } })[];
  properties?: { name: string; value: string }[];
}
interface SpdxPackage {
  SPDXID: string;
  name: string;
  versionInfo?: string;
  licenseDeclared: string;
  checksums?: { algorithm: string; checksumValue: string }[];
  externalRefs?: { referenceLocator: string }[];
}

async function render(files: InputFile[], format: OutputFormat): Promise<string> {
  return (await analyze(files, format)).document;
}

const withLicenses = (licenses: Record<string, unknown>): InputFile[] => {
  const packages: Record<string, unknown> = { '': { name: 'licensed', version: '1.0.0', dependencies: {} } };
  const deps: Record<string, string> = {};
  Object.entries(licenses).forEach(([name, license], i) => {
    packages[`node_modules/${name}`] = {
      version: `1.0.${i}`,
      integrity: `sha512-${Buffer.alloc(64, i).toString('base64')}`,
      license,
    };
    deps[name] = `1.0.${i}`;
  });
  (packages[''] as Json)['dependencies'] = deps;
  return [{ path: 'package-lock.json', content: JSON.stringify({ name: 'licensed', lockfileVersion: 3, packages }) }];
};

describe('CycloneDX 1.7', () => {
  it.each([
    ['small', 'npm3'],
    ['workspaces', 'pnpm9'],
    ['peers', 'yarn4'],
    ['medium', 'yarn1'],
    ['legacy', 'npm3'],
  ])('is valid for %s/%s with components, dependencies, compositions and evidence', async (scenario, tool) => {
    const files = upload(`lockfiles/${scenario}/${tool}`, tool.startsWith('npm') ? ['package.json', 'package-lock.json'] : []);
    const all = files.length > 0 ? files : upload(`lockfiles/${scenario}/${tool}`, listFixture(scenario, tool));
    const json = await render(all, 'cyclonedx');
    expect(await cdxValidator.validate(json)).toBeNull();
    const bom = JSON.parse(json) as Json;
    expect(bom).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.7', version: 1 });
    expect(String(bom['serialNumber'])).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Number.isNaN(Date.parse(String((bom['metadata'] as Json)['timestamp'])))).toBe(false);
    // The uploaded project is the document's subject, not one of its components.
    const subject = (bom['metadata'] as { component?: CdxComponent }).component;
    expect(subject?.type).toBe('application');
    const components = [...(bom['components'] as CdxComponent[]), subject!];
    expect((bom['components'] as CdxComponent[]).some((c) => c['bom-ref'] === subject?.['bom-ref'])).toBe(false);
    const refs = new Set(components.map((c) => c['bom-ref']));
    expect(refs.size).toBe(components.length);
    const dependencies = bom['dependencies'] as { ref: string; dependsOn?: string[] }[];
    expect(dependencies.length).toBe(components.length);
    for (const d of dependencies) for (const target of d.dependsOn ?? []) expect(refs.has(target)).toBe(true);
    const compositions = bom['compositions'] as { aggregate: string; assemblies: string[] }[];
    expect(compositions[0]?.assemblies.length).toBe(components.length);
    expect(compositions[0]?.aggregate).toBe(scenario === 'legacy' ? 'incomplete' : 'complete');
    const properties = Object.fromEntries((bom['properties'] as { name: string; value: string }[]).map((p) => [p.name, p.value]));
    expect(Object.keys(properties).sort()).toEqual([
      'service:completeness',
      'service:declarations',
      'service:lockfiles',
      'service:manifest_associations',
      'service:notice',
      'service:resolution_basis',
      'service:resolutions',
    ]);
    expect(properties['service:completeness']).toBe('recorded_lockfile_inventory');
    expect(properties['service:resolution_basis']).toBe('lockfile_records');
    expect(JSON.parse(properties['service:lockfiles'] ?? '[]')).toHaveLength(1);
  });

  it('describes components: scoped names, purls, scopes, hashes, aliases and install paths', async () => {
    const bom = JSON.parse(await render(upload('lockfiles/small/npm3', ['package.json', 'package-lock.json']), 'cyclonedx')) as Json;
    const components = bom['components'] as CdxComponent[];
    const find = (name: string) => components.find((c) => c.name === name)!;
    const lodash = find('lodash');
    expect(lodash.purl).toBe('pkg:npm/lodash@4.17.21');
    expect(lodash.properties).toContainEqual({ name: 'service:alias', value: 'my-lodash' });
    expect(lodash.properties).toContainEqual({ name: 'cdx:npm:package:path', value: 'node_modules/my-lodash' });
    expect(lodash.hashes?.[0]?.alg).toBe('SHA-512');
    expect(lodash.hashes?.[0]?.content).toMatch(/^[0-9a-f]{128}$/);
    expect(find('typescript').scope).toBe('excluded');
    expect(find('fsevents').scope).toBe('optional');
    expect(find('express').scope).toBe('required');
    expect(find('express').licenses).toEqual([{ expression: 'MIT' }]);
    const fx = (bom['metadata'] as { component: CdxComponent }).component;
    expect(fx).toMatchObject({ name: 'fx-small', type: 'application' });
    expect(fx.scope).toBeUndefined();
    expect(components.some((c) => c.name === 'fx-small')).toBe(false);

    const scoped = JSON.parse(await render(upload('lockfiles/peers/npm3', ['package.json', 'package-lock.json']), 'cyclonedx')) as Json;
    const emotion = (scoped['components'] as CdxComponent[]).find((c) => c.group === '@emotion' && c.name === 'react')!;
    expect(emotion.purl).toBe('pkg:npm/%40emotion/react@11.13.3');
  });

  it('keeps two occurrences of one name and version as two components', async () => {
    const bom = JSON.parse(await render(upload('lockfiles/medium/npm3', ['package.json', 'package-lock.json']), 'cyclonedx')) as Json;
    const components = bom['components'] as CdxComponent[];
    const counts = new Map<string, number>();
    for (const c of components) counts.set(`${c.group ?? ''}/${c.name}@${c.version ?? ''}`, (counts.get(`${c.group ?? ''}/${c.name}@${c.version ?? ''}`) ?? 0) + 1);
    const lock = JSON.parse(upload('lockfiles/medium/npm3', ['package-lock.json'])[0]!.content) as { packages: Record<string, { version?: string; name?: string }> };
    const lockCounts = new Map<string, number>();
    for (const [key, e] of Object.entries(lock.packages)) {
      if (key === '') continue;
      const name = e.name ?? key.slice(key.lastIndexOf('node_modules/') + 13);
      const [group, bare] = name.startsWith('@') ? [name.split('/')[0]!, name.split('/')[1]!] : ['', name];
      lockCounts.set(`${group}/${bare}@${e.version ?? ''}`, (lockCounts.get(`${group}/${bare}@${e.version ?? ''}`) ?? 0) + 1);
    }
    for (const [id, n] of lockCounts) expect(counts.get(id), id).toBe(n);
    expect([...lockCounts.values()].some((n) => n > 1)).toBe(true);
  });
});

describe('licenses', () => {
  it('normalises declared licenses to SPDX expressions and keeps the rest as named licenses', () => {
    expect(normalizeLicense('MIT')).toEqual({ kind: 'expression', expression: 'MIT' });
    expect(normalizeLicense('(MIT OR Apache-2.0)')).toEqual({ kind: 'expression', expression: 'MIT OR Apache-2.0' });
    expect(normalizeLicense('Apache 2.0')).toEqual({ kind: 'expression', expression: 'Apache-2.0' });
    expect(normalizeLicense('MIT or Apache 2')).toEqual({ kind: 'expression', expression: 'MIT OR Apache-2.0' });
    expect(normalizeLicense('GPL-2.0+')).toEqual({ kind: 'expression', expression: 'GPL-2.0+' });
    expect(normalizeLicense('SEE LICENSE IN LICENSE.md')).toEqual({ kind: 'named', name: 'SEE LICENSE IN LICENSE.md' });
    expect(normalizeLicense('UNLICENSED')).toEqual({ kind: 'named', name: 'UNLICENSED' });
    expect(normalizeLicense('')).toBeNull();
    expect(normalizeLicense(null)).toBeNull();
  });

  it('normalises each declared text once and answers it again from memory', () => {
    const first = normalizeLicense('Apache 2.0 or MIT');
    expect(first).toEqual({ kind: 'expression', expression: 'Apache-2.0 OR MIT' });
    // The same answer, not a new one: the text was not parsed (or corrected) again.
    expect(normalizeLicense('  Apache 2.0 or MIT ')).toBe(first);
    expect(normalizeLicense('Apache 2.0 OR MIT')).not.toBe(first);
  });

  it('writes them into both documents validly', async () => {
    const files = withLicenses({
      plain: 'MIT',
      dual: '(MIT OR Apache-2.0)',
      sloppy: 'Apache 2.0',
      custom: 'SEE LICENSE IN EULA.txt',
      legacy: { type: 'BSD-3-Clause' },
      none: undefined,
      ref: 'LicenseRef-Internal',
    });
    const bom = JSON.parse(await render(files, 'cyclonedx')) as Json;
    const lic = Object.fromEntries((bom['components'] as CdxComponent[]).map((c) => [c.name, c.licenses]));
    expect(lic['plain']).toEqual([{ expression: 'MIT' }]);
    expect(lic['sloppy']).toEqual([{ expression: 'Apache-2.0' }]);
    expect(lic['legacy']).toEqual([{ expression: 'BSD-3-Clause' }]);
    expect(lic['custom']).toEqual([{ license: { name: 'SEE LICENSE IN EULA.txt' } }]);
    expect(lic['none']).toBeUndefined();

    const spdx = JSON.parse(await render(files, 'spdx')) as Json;
    expect(officialSpdxSchema(spdx)).toBe(true);
    const declared = Object.fromEntries((spdx['packages'] as SpdxPackage[]).map((p) => [p.name, p.licenseDeclared]));
    expect(declared['dual']).toBe('MIT OR Apache-2.0');
    expect(declared['none']).toBe('NOASSERTION');
    expect(declared['custom']).toMatch(/^LicenseRef-SEE-LICENSE-IN-EULA.txt/);
    const extracted = spdx['hasExtractedLicensingInfos'] as { licenseId: string; extractedText: string }[];
    expect(extracted).toContainEqual(expect.objectContaining({ licenseId: declared['custom'], extractedText: 'SEE LICENSE IN EULA.txt' }));
    expect(extracted.map((e) => e.licenseId)).toContain('LicenseRef-Internal');
  });
});

describe('hashes', () => {
  it('converts integrity strings by the algorithm they name, and only those', () => {
    const sha512 = `sha512-${Buffer.alloc(64, 1).toString('base64')}`;
    const sha1 = `sha1-${Buffer.alloc(20, 2).toString('base64')}`;
    expect(integrityChecksums(`${sha512} ${sha1}`)).toEqual([
      { algorithm: 'SHA-512', hex: '01'.repeat(64) },
      { algorithm: 'SHA-1', hex: '02'.repeat(20) },
    ]);
    expect(integrityChecksums('sha512-dG9vc2hvcnQ=')).toEqual([]);
    expect(integrityChecksums('md5-AAAAAAAAAAAAAAAAAAAAAA==')).toEqual([]);
    expect(integrityChecksums(null)).toEqual([]);
  });

  it('takes yarn classic tarball sha1 from resolved URLs, and never labels yarn berry checksums', async () => {
    const classic = JSON.parse(await render(upload('lockfiles/small/yarn1', ['package.json', 'yarn.lock']), 'cyclonedx')) as Json;
    const leftPad = (classic['components'] as CdxComponent[]).find((c) => c.name === 'left-pad')!;
    expect(leftPad.hashes?.map((h) => h.alg).sort()).toEqual(['SHA-512']);
    const berry = JSON.parse(await render(upload('lockfiles/small/yarn4', ['package.json', 'yarn.lock']), 'cyclonedx')) as Json;
    for (const c of berry['components'] as CdxComponent[]) expect(c.hashes ?? []).toEqual([]);
    const berryPad = (berry['components'] as CdxComponent[]).find((c) => c.name === 'left-pad')!;
    expect(berryPad.properties?.some((p) => p.name === 'service:yarn-checksum')).toBe(false);
  });
});

describe('the CycloneDX specification the renderer normalises with', () => {
  it('answers as the library\'s 1.7 does, hash digits included', () => {
    const library = CDX.Spec.Spec1dot7;
    const ours = withLinearHashCheck(library);
    const digests = ['ab'.repeat(16), 'AB'.repeat(20), '0f'.repeat(32), 'e'.repeat(96), '12'.repeat(64), 'ab'.repeat(17), 'g'.repeat(32), '', `${'a'.repeat(128)}\n`, 'a'.repeat(129)];
    for (const digest of digests) expect([digest, ours.supportsHashValue(digest)]).toEqual([digest, library.supportsHashValue(digest)]);
    expect(ours.supportsHashValue(42)).toBe(false);
    expect(ours.version).toBe(library.version);
    expect(ours.supportsDependencyGraph).toBe(library.supportsDependencyGraph);
    for (const algorithm of [...Object.values(CDX.Enums.HashAlgorithm), 'MD4']) expect(ours.supportsHashAlgorithm(algorithm)).toBe(library.supportsHashAlgorithm(algorithm));
    for (const type of [...Object.values(CDX.Enums.ExternalReferenceType), 'nonsense']) {
      expect(ours.supportsExternalReferenceType(type)).toBe(library.supportsExternalReferenceType(type));
    }
    expect(ours.supportsProperties(new CDX.Models.NamedLicense('x'))).toBe(library.supportsProperties(new CDX.Models.NamedLicense('x')));
  });
});

describe('SPDX 2.3', () => {
  it.each([
    ['small', 'pnpm9'],
    ['workspaces', 'bun'],
    ['medium', 'npm3'],
  ])('validates for %s/%s against the official schema and our own checks', async (scenario, tool) => {
    const json = await render(upload(`lockfiles/${scenario}/${tool}`, listFixture(scenario, tool)), 'spdx');
    const doc = JSON.parse(json) as Json;
    expect(officialSpdxSchema(doc)).toBe(true);
    expect(spdxProblems(doc)).toEqual({ schema: [], content: [] });
    const packages = doc['packages'] as SpdxPackage[];
    const ids = packages.map((p) => p.SPDXID);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^SPDXRef-[A-Za-z0-9.-]+$/.test(id))).toBe(true);
    const relationships = doc['relationships'] as { relationshipType: string }[];
    expect(relationships.some((r) => r.relationshipType === 'DESCRIBES')).toBe(true);
    expect(relationships.some((r) => r.relationshipType === 'DEPENDS_ON')).toBe(true);
    const first = packages.find((p) => p.checksums);
    expect(first?.checksums?.[0]?.algorithm).toBe('SHA512');
    expect(packages.some((p) => p.externalRefs?.[0]?.referenceLocator.startsWith('pkg:npm/'))).toBe(true);
  });

  it('sanitises scoped names and + in versions into unique ids', async () => {
    const packages = {
      '': { name: 'edge', version: '1.0.0', dependencies: { '@scope/pkg': '1.0.0+build.5', other: '1.0.0+build.5' } },
      'node_modules/@scope/pkg': { version: '1.0.0+build.5', license: 'ISC' },
      'node_modules/other': { version: '1.0.0+build.5', dependencies: { '@scope/pkg': '2' } },
      'node_modules/other/node_modules/@scope/pkg': { version: '1.0.0+build.5' },
    };
    const json = await render([{ path: 'package-lock.json', content: JSON.stringify({ lockfileVersion: 3, packages }) }], 'spdx');
    const doc = JSON.parse(json) as { packages: SpdxPackage[] };
    expect(officialSpdxSchema(doc)).toBe(true);
    const ids = doc.packages.filter((p) => p.name === '@scope/pkg').map((p) => p.SPDXID);
    expect(ids).toEqual(['SPDXRef-Package-scope-pkg-1.0.0-build.5', 'SPDXRef-Package-scope-pkg-1.0.0-build.5-2']);
    expect(doc.packages.find((p) => p.name === '@scope/pkg')?.versionInfo).toBe('1.0.0+build.5');
  });

  it('refuses documents that break SPDX rules', () => {
    const base = {
      spdxVersion: 'SPDX-2.3',
      dataLicense: 'CC0-1.0',
      SPDXID: 'SPDXRef-DOCUMENT',
      name: 'x',
      documentNamespace: 'https://example.invalid/x',
      creationInfo: { created: '2026-01-01T00:00:00Z', creators: ['Tool: t'] },
      packages: [{ SPDXID: 'SPDXRef-A', name: 'a', downloadLocation: 'NOASSERTION', licenseDeclared: 'MIT AND LicenseRef-x' }],
      relationships: [{ spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-B' }],
    };
    expect(spdxProblems(base).content).toEqual([
      'SPDXRef-A licenseDeclared: undeclared LicenseRef-x',
      'relationship DESCRIBES points at unknown SPDXRef-B',
    ]);
    expect(() => validateSpdx(JSON.stringify(base))).toThrow(expect.objectContaining({ code: 'unrepresentable_spdx' }));
    expect(() => validateSpdx(JSON.stringify({ ...base, spdxVersion: 'SPDX-2.2' }))).toThrow(
      expect.objectContaining({ code: 'invalid_response' }),
    );
    const dup = { ...base, packages: [...base.packages, { ...base.packages[0], licenseDeclared: 'MIT' }], relationships: [] };
    expect(spdxProblems(dup).content).toContain('duplicate SPDXID SPDXRef-A');
    expect(spdxProblems({ ...base, packages: [{ ...base.packages[0], licenseDeclared: 'MIT OR' }] }).content[0]).toMatch(/invalid license expression/);
  });
});

describe('text', () => {
  it('summarises, lists one line per component, then unresolved declarations and notices', async () => {
    // tools/ sits beside the locked project, not below its lockfile (which would leave it unresolved, named in a notice).
    const files = [
      ...upload('lockfiles/legacy/npm3', ['package.json', 'package-lock.json']).map((f) => ({ ...f, path: `app/${f.path}` })),
      { path: 'tools/package.json', content: JSON.stringify({ name: 'tools', dependencies: { eslint: '^9' } }) },
    ];
    const text = await render(files, 'text');
    const lines = text.split('\n');
    expect(lines[0]).toBe('pkgscope inventory');
    expect(text).toMatch(/^completeness: +partial_manifest_inventory$/m);
    expect(text).toMatch(/^resolution basis: +lockfile_records$/m);
    expect(text).toMatch(/^components: +10 \(1 project roots\)$/m);
    expect(text).toMatch(/^npm +react-dom +18\.3\.1 +MIT +required +node_modules\/react-dom$/m);
    expect(text).toMatch(/^Unresolved declarations:\n {2}tools\/package\.json: eslint \^9 \(npm dependencies\)$/m);
    expect(text).toMatch(/react-dom@18\.3\.1 declares react@\^18\.3\.1 \(peer\) but the lockfile gives 17\.0\.2/);
  });
});

describe('output limit', () => {
  it('writes what JSON.stringify writes, lists included at any length', async () => {
    const { BoundedOutput, writeJson } = await import('../../src/sbom/render/output.js');
    const member = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined), fc.constant(() => 1), fc.date({ noInvalidDate: true }));
    const list = fc.array(fc.oneof(member, fc.dictionary(fc.string(), member, { maxKeys: 3 })), { maxLength: 200 });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(member, list, fc.dictionary(fc.string(), fc.oneof(member, list), { maxKeys: 3 })), { maxKeys: 4 }), (document) => {
        const out = new BoundedOutput();
        writeJson(out, document);
        expect(out.toString()).toBe(JSON.stringify(document));
        expect(out.byteSize).toBe(Buffer.byteLength(JSON.stringify(document)));
      }),
      { numRuns: 300 },
    );
  });

  it('fails a list within a chunk of crossing the limit, before the rest is written', async () => {
    const { BoundedOutput, writeJson } = await import('../../src/sbom/render/output.js');
    const item = { name: 'x'.repeat(90) };
    const out = new BoundedOutput(10_000);
    let written = 0;
    const write = out.write.bind(out);
    out.write = (text: string) => {
      written += text.length;
      write(text);
    };
    expect(() => writeJson(out, { components: Array.from({ length: 100_000 }, () => item) })).toThrow(expect.objectContaining({ code: 'output_too_large' }));
    expect(written).toBeLessThan(10_000 + 64 * JSON.stringify(item).length + 100);
  });

  it('fails with output_too_large while rendering, for every format', async () => {
    const files = upload('lockfiles/medium/npm3', ['package.json', 'package-lock.json']);
    for (const format of ['cyclonedx', 'spdx', 'text'] as const) {
      await expect(analyze(files, format, { maxOutputBytes: 10_000 })).rejects.toMatchObject({ code: 'output_too_large' });
    }
  });
});

function listFixture(scenario: string, tool: string): string[] {
  const names: Record<string, string[]> = {
    npm3: ['package.json', 'package-lock.json'],
    yarn1: ['package.json', 'yarn.lock'],
    yarn4: ['package.json', 'yarn.lock'],
    pnpm9: ['package.json', 'pnpm-lock.yaml'],
    bun: ['package.json', 'bun.lock'],
  };
  const members = scenario === 'workspaces' ? ['packages/a/package.json', 'packages/b/package.json'] : [];
  return [...(names[tool] ?? []), ...members];
}

describe('CycloneDX validation', () => {
  /** A valid document and broken ones, each broken in one way the schema forbids. */
  async function documents(): Promise<{ valid: string; broken: Record<string, string> }> {
    const valid = await render(upload('lockfiles/peers/npm3', ['package.json', 'package-lock.json']), 'cyclonedx');
    const bom = JSON.parse(valid) as Json & { components: Json[]; dependencies: Json[]; metadata: Json };
    const broken: Record<string, Json> = {
      'duplicate component': { ...bom, components: [...bom.components, bom.components[3]!] },
      'duplicate dependency entry': { ...bom, dependencies: [...bom.dependencies, bom.dependencies[0]!] },
      'missing bomFormat': Object.fromEntries(Object.entries(bom).filter(([k]) => k !== 'bomFormat')),
      'bad hash': {
        ...bom,
        components: [{ ...bom.components[1]!, hashes: [{ alg: 'SHA-512', content: 'xyz' }] }, ...bom.components.slice(2)],
      },
      'unknown scope': { ...bom, components: [{ ...bom.components[1]!, scope: 'sometimes' }] },
      'timestamp not a date-time': { ...bom, metadata: { ...bom.metadata, timestamp: 'yesterday' } },
      'author email not an email': { ...bom, components: [{ ...bom.components[1]!, authors: [{ email: 'nobody at all' }] }] },
    };
    return { valid, broken: Object.fromEntries(Object.entries(broken).map(([k, v]) => [k, JSON.stringify(v)])) };
  }

  it('agrees with the CycloneDX library validator on valid and broken documents', async () => {
    const { cycloneDxProblems } = await import('../../src/sbom/validate/cyclonedx.js');
    const { valid, broken } = await documents();
    expect(cycloneDxProblems(valid)).toEqual([]);
    expect(await cdxValidator.validate(valid)).toBeNull();
    for (const [name, json] of Object.entries(broken)) {
      expect(cycloneDxProblems(json).length, name).toBeGreaterThan(0);
      expect(await cdxValidator.validate(json), name).not.toBeNull();
    }
  });

  it('checks uniqueness by deep equality, whatever the key order, and never confuses a string with another value', async () => {
    const { allUnique } = await import('../../src/sbom/validate/cyclonedx-runtime.cjs');
    expect(allUnique([{ a: 1, b: [2, { c: 3, d: 4 }] }, { b: [2, { d: 4, c: 3 }], a: 1 }])).toBe(false);
    expect(allUnique(['x', 'y', 'x'])).toBe(false);
    expect(allUnique(['1', 1, 'null', null, '{}', {}, '[]', [], 'true', true, '"a"', 'a'])).toBe(true);
    expect(allUnique([{ a: 'x' }, { a: 'y' }, [1, 2], [2, 1]])).toBe(true);
  });

  it('agrees with a pairwise deep comparison on any array of JSON values, copies with their keys reordered among them', async () => {
    const { allUnique } = await import('../../src/sbom/validate/cyclonedx-runtime.cjs');
    const deepEqual = (a: unknown, b: unknown): boolean => {
      if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
      if (Array.isArray(a) !== Array.isArray(b)) return false;
      const ka = Object.keys(a);
      const kb = Object.keys(b);
      return ka.length === kb.length && ka.every((k) => k in b && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
    };
    const reordered = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(reordered);
      if (typeof value !== 'object' || value === null) return value;
      return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)]));
    };
    // Objects that share their primitive members but differ deeper, to fill fingerprint buckets.
    const member = fc.oneof(fc.constantFrom('a', 'b', 1, null, true), fc.jsonValue({ maxDepth: 2 }));
    // Components and dependencies are told by their `bom-ref` or `ref` first: items sharing one
    // but differing deeper, or with a reference that is not a string, fill those buckets.
    const reference = fc.constantFrom('r1', 'r2', 1, null);
    const item = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ name: fc.constantFrom('x', 'y'), nested: fc.array(member, { maxLength: 3 }) }),
      fc.record({ 'bom-ref': reference, nested: fc.array(member, { maxLength: 2 }) }, { requiredKeys: ['nested'] }),
      fc.record({ ref: reference, dependsOn: fc.array(fc.constantFrom('r1', 'r2'), { maxLength: 2 }), 'bom-ref': reference }, { requiredKeys: ['ref'] }),
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), fc.array(fc.nat(8), { maxLength: 3 }), (generated, picks) => {
        const base = JSON.parse(JSON.stringify(generated)) as unknown[];
        const items = [...base, ...picks.filter((i) => i < base.length).map((i) => reordered(base[i]))];
        const pairwise = items.every((a, i) => items.every((b, j) => j <= i || !deepEqual(a, b)));
        expect(allUnique(items)).toBe(pairwise);
      }),
      { numRuns: 500 },
    );
  });

  it('counts code points as Ajv does, and matches hash contents as the schema pattern does', async () => {
    const { regExp, ucs2length } = await import('../../src/sbom/validate/cyclonedx-runtime.cjs');
    const ajvUcs2length = (createRequire(import.meta.url)('ajv/dist/runtime/ucs2length') as { default: (text: string) => number }).default;
    // Astral characters (surrogate pairs), lone surrogates and plain text, mixed.
    const unit = fc.oneof(fc.constantFrom('a', 'é', '😀', '\ud800', '\udc00'), fc.string({ unit: 'binary', maxLength: 2 }));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), (units) => {
        expect(ucs2length(units.join(''))).toBe(ajvUcs2length(units.join('')));
      }),
      { numRuns: 500 },
    );

    const pattern = '^([a-fA-F0-9]{32}|[a-fA-F0-9]{40}|[a-fA-F0-9]{64}|[a-fA-F0-9]{96}|[a-fA-F0-9]{128})$';
    const fast = regExp(pattern, 'u');
    const schema = new RegExp(pattern, 'u');
    const hex = fc.string({ unit: fc.constantFrom('0', '9', 'a', 'F', 'f'), minLength: 30, maxLength: 130 });
    const nearly = fc.tuple(hex, fc.nat(130), fc.constantFrom('g', ' ', '\n', 'é')).map(([h, at, c]) => `${h.slice(0, at)}${c}${h.slice(at + 1)}`);
    fc.assert(
      fc.property(fc.oneof(hex, nearly), (text) => {
        expect(fast.test(text)).toBe(schema.test(text));
      }),
      { numRuns: 2000 },
    );
    for (const length of [32, 40, 64, 96, 128]) expect(fast.test('a'.repeat(length))).toBe(true);
    // Every other pattern is the RegExp itself.
    expect(regExp('^[A-Z]{2}$', 'u')).toEqual(/^[A-Z]{2}$/u);
  });

  it('checks the value a document was written from, the text deciding when the value holds what JSON writes differently', async () => {
    const { validateCycloneDx } = await import('../../src/sbom/validate/cyclonedx.js');
    const { valid, broken } = await documents();
    const value = JSON.parse(valid) as { metadata: Record<string, unknown> };
    expect(() => validateCycloneDx(valid, value)).not.toThrow();
    // A Date is no string to the schema, but JSON writes it as one: the text is valid.
    const withDate = { ...value, metadata: { ...value.metadata, timestamp: new Date('2026-01-02T03:04:05Z') } };
    expect(() => validateCycloneDx(valid, withDate)).not.toThrow();
    for (const json of Object.values(broken)) expect(() => validateCycloneDx(json, JSON.parse(json))).toThrow(/CycloneDX validation failed/);
    // The text given as a function: asked for only when the value fails, and then it decides.
    let asked = 0;
    const text = (json: string) => () => (asked++, json);
    expect(() => validateCycloneDx(text(valid), value)).not.toThrow();
    expect(asked).toBe(0);
    expect(() => validateCycloneDx(text(valid), withDate)).not.toThrow();
    expect(asked).toBe(1);
    for (const json of Object.values(broken)) expect(() => validateCycloneDx(text(json), JSON.parse(json))).toThrow(/CycloneDX validation failed/);
  });

  it('gives the same verdicts from the standalone code the build writes as from the compiled schemas', async () => {
    const { cycloneDxProblems, cycloneDxStandaloneCode, problemsWith, STANDALONE_FILE } = await import('../../src/sbom/validate/cyclonedx.js');
    // Inside the project, so that the code's `require("ajv/dist/runtime/…")` resolves as it does in dist/.
    const cacheDir = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));
    await mkdir(cacheDir, { recursive: true });
    const dir = await mkdtemp(join(cacheDir, 'pkgscope-validator-'));
    try {
      await copyFile(fileURLToPath(new URL('../../src/sbom/validate/cyclonedx-runtime.cjs', import.meta.url)), join(dir, 'cyclonedx-runtime.cjs'));
      await writeFile(join(dir, STANDALONE_FILE), cycloneDxStandaloneCode());
      const standalone = createRequire(import.meta.url)(join(dir, STANDALONE_FILE)) as Parameters<typeof problemsWith>[0];
      const { valid, broken } = await documents();
      expect(problemsWith(standalone, valid)).toEqual([]);
      for (const [name, json] of Object.entries(broken)) {
        expect(problemsWith(standalone, json), name).toEqual(cycloneDxProblems(json));
        expect(problemsWith(standalone, json).length, name).toBeGreaterThan(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
