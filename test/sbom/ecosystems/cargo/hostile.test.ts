import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cargoEcosystem } from '../../../../src/ecosystems/cargo/analysis.js';
import { MAX_LOCK_PACKAGES } from '../../../../src/ecosystems/cargo/parse-cargo-lock.js';
import { MAX_CARGO_FILE_CHARS } from '../../../../src/ecosystems/cargo/toml.js';
import type { EcosystemInventory } from '../../../../src/ecosystems/types.js';
import type { InputFile } from '../../../../src/model/types.js';
import { GREPPER_CRATES } from './crates.js';
import { buildFiles, cargoUpload, cratesFixtures } from './helpers.js';

const eco = cargoEcosystem(null);
const startRegistry = cratesFixtures();
const CIO = 'registry+https://github.com/rust-lang/crates.io-index';

/** Whatever the input, build() settles with problems of the documented shape; it never throws. */
async function settles(files: InputFile[]): Promise<EcosystemInventory> {
  const result = await buildFiles(files, eco);
  for (const p of result.problems) {
    expect(typeof p.path).toBe('string');
    expect(['malformed', 'limit_exceeded', 'unsupported_version']).toContain(p.reason);
    expect(typeof p.message).toBe('string');
  }
  return result;
}

const crateName = fc.stringMatching(/^[a-z][a-z0-9_-]{0,12}$/);
const version = fc.tuple(fc.nat(9), fc.nat(20), fc.nat(30)).map(([a, b, c]) => `${a}.${b}.${c}`);
const source = fc.constantFrom(
  CIO,
  'sparse+https://index.crates.io/',
  'git+https://github.com/example/x?branch=a%2Fb#0123456789abcdef0123456789abcdef01234567',
  null,
);
const lockPackage = fc.record({ name: crateName, version, source, deps: fc.array(fc.nat(40), { maxLength: 6 }) });

/** A well-formed Cargo.lock of the generated packages (dependency strings point at other entries). */
function lockText(packages: { name: string; version: string; source: string | null; deps: number[] }[], format: 1 | 3 | 4): string {
  const lines = format === 1 ? [] : [`version = ${format}`, ''];
  for (const p of packages) {
    lines.push('[[package]]', `name = "${p.name}"`, `version = "${p.version}"`);
    if (p.source !== null) lines.push(`source = "${p.source}"`);
    const deps = p.deps.flatMap((i) => packages[i % packages.length] ?? []).filter((d) => d !== p);
    if (deps.length > 0) {
      lines.push('dependencies = [');
      for (const d of deps) lines.push(format === 1 && d.source !== null ? ` "${d.name} ${d.version} (${d.source})",` : ` "${d.name} ${d.version}",`);
      lines.push(']');
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** Damage to apply to a text: cut it, splice junk into it, drop or repeat a line. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), text: fc.oneof(fc.string(), fc.constantFrom('[', ']]', '"', '= [', '\n[[package]]\n', '{ a = { b = [', 'version = "x"', 'dependencies = 7')) }),
  fc.record({ kind: fc.constant('dropLine' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('repeatLine' as const), at: fc.nat() }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(text: string, m: Mutation): string {
  const at = text.length === 0 ? 0 : m.at % text.length;
  const lines = text.split('\n');
  const line = lines.length === 0 ? 0 : m.at % lines.length;
  switch (m.kind) {
    case 'truncate':
      return text.slice(0, at);
    case 'splice':
      return text.slice(0, at) + m.text + text.slice(at);
    case 'dropLine':
      return lines.filter((_, i) => i !== line).join('\n');
    case 'repeatLine':
      return lines.flatMap((l, i) => (i === line ? [l, l] : [l])).join('\n');
  }
}

describe('Cargo.lock under hostile input', () => {
  it('a well-formed generated lockfile gives one occurrence per distinct entry', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(lockPackage, { minLength: 1, maxLength: 30 }), fc.constantFrom(1 as const, 3 as const, 4 as const), async (packages, format) => {
        const { inventory, problems } = await settles([{ path: 'Cargo.lock', content: lockText(packages, format) }]);
        expect(problems).toEqual([]);
        const distinct = new Set(packages.map((p) => `${p.name} ${p.version} ${p.source ?? ''}`));
        expect(inventory.occurrences).toHaveLength(distinct.size);
      }),
      { seed: 20261124, numRuns: 200 },
    );
  });

  it('mutated, truncated and random lockfiles never throw', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(lockPackage, { minLength: 1, maxLength: 20 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), async (packages, mutations) => {
        const content = mutations.reduce(mutate, lockText(packages, 3));
        const { inventory } = await settles([{ path: 'Cargo.lock', content }]);
        expect(inventory.occurrences.length).toBeLessThanOrEqual(content.split('[[package]]').length + 1);
      }),
      { seed: 4242, numRuns: 300 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 400 }), async (content) => {
        await settles([{ path: 'Cargo.lock', content }]);
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it('names the file, the reason and the line of a package in an unexpected shape', async () => {
    const content = `version = 3\n\n[[package]]\nname = "a"\nversion = "1.0.0"\n\n[[package]]\nname = "b"\nversion = "1.0.0"\ndependencies = ["a", 7]\n`;
    const { problems, inventory } = await settles([{ path: 'sub/Cargo.lock', content }]);
    expect(problems).toEqual([{ path: 'sub/Cargo.lock', reason: 'malformed', message: 'package b has a dependency that is not a string', line: 7 }]);
    expect(inventory.occurrences).toEqual([]);
    expect(inventory.notices).toEqual(['sub/Cargo.lock was skipped: package b has a dependency that is not a string']);
  });

  it('reports invalid TOML with its line and column, and other shapes as malformed', async () => {
    const cases: [string, string][] = [
      ['version = 3\n[[package]]\nname = "a\n', 'malformed'],
      ['package = "not a table"\n', 'malformed'],
      ['version = "three"\n', 'malformed'],
      [`x = ${'['.repeat(5000)}${']'.repeat(5000)}\n`, 'malformed'],
      ['[[package]]\nversion = "1.0.0"\n', 'malformed'],
    ];
    for (const [content, reason] of cases) {
      const { problems } = await settles([{ path: 'Cargo.lock', content }]);
      expect(problems.map((p) => p.reason), content.slice(0, 40)).toEqual([reason]);
    }
    const { problems } = await settles([{ path: 'Cargo.lock', content: 'version = 3\n[[package]]\nname = "a\n' }]);
    expect(problems[0]).toMatchObject({ line: 3, column: expect.any(Number) as number });
  });

  it('refuses a file past the size bound and a lockfile past the entry bound before building', async () => {
    const big = await settles([{ path: 'Cargo.lock', content: `# ${'x'.repeat(MAX_CARGO_FILE_CHARS)}` }]);
    expect(big.problems.map((p) => p.reason)).toEqual(['limit_exceeded']);
    const many = await settles([{ path: 'Cargo.lock', content: '[[package]]\n'.repeat(MAX_LOCK_PACKAGES + 1) }]);
    expect(many.problems.map((p) => p.reason)).toEqual(['limit_exceeded']);
  });

  it('a dependency naming no package is a notice, not a failure; a crate called constructor is a crate', async () => {
    const content = `version = 3\n\n[[package]]\nname = "constructor"\nversion = "0.1.0"\nsource = "${CIO}"\n\n[[package]]\nname = "app"\nversion = "0.1.0"\ndependencies = ["constructor", "ghost", "__proto__"]\n`;
    const { inventory, problems } = await settles([{ path: 'Cargo.lock', content }]);
    expect(problems).toEqual([]);
    expect(inventory.occurrences.map((o) => o.name)).toEqual(['constructor', 'app']);
    expect(inventory.notices).toEqual(['Cargo.lock: 2 dependency reference(s) name no package of the lockfile']);
  });
});

describe('Cargo.toml under hostile input', () => {
  const manifest = cargoUpload('v3-workspace').find((f) => f.path === 'crates/app/Cargo.toml')?.content ?? '';
  const root = cargoUpload('v3-workspace').find((f) => f.path === 'Cargo.toml')?.content ?? '';

  it('mutated and random manifests never throw, beside a lockfile or alone', async () => {
    const lock = cargoUpload('v3-workspace').find((f) => f.path === 'Cargo.lock')?.content ?? '';
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.array(mutation, { maxLength: 2 }), fc.boolean(), async (m1, m2, withLock) => {
        const files: InputFile[] = [
          { path: 'crates/app/Cargo.toml', content: m1.reduce(mutate, manifest) },
          { path: 'Cargo.toml', content: m2.reduce(mutate, root) },
          ...(withLock ? [{ path: 'Cargo.lock', content: lock }] : []),
        ];
        await settles(files);
      }),
      { seed: 99, numRuns: 300 },
    );
  });

  it('values of unexpected types are ignored, not trusted', async () => {
    const content = [
      '[package]',
      'name = "odd"',
      'version = 3',
      'license = ["MIT"]',
      '[dependencies]',
      'a = 1',
      'b = { version = ["1"], optional = "yes", package = 5 }',
      'c = { workspace = true }',
      '[features]',
      'default = "not-a-list"',
      '[target]',
      'x = 5',
      '[workspace]',
      'members = "crates/*"',
    ].join('\n');
    const { inventory, problems } = await settles([{ path: 'Cargo.toml', content }]);
    expect(problems).toEqual([]);
    expect(inventory.occurrences.map((o) => [o.name, o.version, o.license])).toEqual([['odd', null, null]]);
    expect(inventory.declarations.map((d) => [d.name, d.range])).toEqual([
      ['b', ''],
      ['c', ''],
    ]);
  });

  it('a manifest with neither [package] nor [workspace] is a problem, and JSON under the name is not claimed', async () => {
    const { problems } = await settles([{ path: 'x/Cargo.toml', content: '[dependencies]\nserde = "1"\n' }]);
    expect(problems).toEqual([{ path: 'x/Cargo.toml', reason: 'malformed', message: 'neither [package] nor [workspace]: not a Cargo manifest' }]);
    expect(eco.claim({ path: 'Cargo.lock', content: '{"version": 1}' })).toBeNull();
    expect(eco.claim({ path: 'cargo.lock', content: '' })).toBeNull();
  });

  it('mutated manifests resolved against a registry never throw', async () => {
    const { endpoint } = await startRegistry({ crates: GREPPER_CRATES });
    const online = cargoEcosystem(endpoint);
    const grepper = cargoUpload('manifest-only')[0]?.content ?? '';
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        const { inventory, problems } = await buildFiles([{ path: 'Cargo.toml', content: mutations.reduce(mutate, grepper) }], online);
        // Either the manifest could not be read (a problem), or it was resolved or declared.
        expect(problems.length + inventory.resolutions.length).toBeGreaterThan(0);
      }),
      { seed: 314, numRuns: 100 },
    );
  });
});
