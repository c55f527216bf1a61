import { describe, expect, it } from 'vitest';
import { cargoEcosystem } from '../../../../src/ecosystems/cargo/analysis.js';
import { cargoRange } from '../../../../src/ecosystems/cargo/resolve.js';
import { GREPPER_CRATES as CRATES } from './crates.js';
import { buildFiles, cargoUpload, cratesFixtures, edgesOf, inScope } from './helpers.js';

const startRegistry = cratesFixtures();

describe('Cargo.toml resolved against crates.io', () => {
  it('picks the highest matching published version, follows features, keeps git and path requirements declared', async () => {
    const { registry, endpoint } = await startRegistry({ crates: CRATES });
    const result = await buildFiles(cargoUpload('manifest-only'), cargoEcosystem(endpoint));
    const { inventory, problems } = result;
    expect(problems).toEqual([]);
    expect(inventory.resolutions).toEqual([{ manifest: 'Cargo.toml', outcome: 'resolved', detail: null }]);
    expect(inventory.associations).toEqual([{ manifest: 'Cargo.toml', lockfile: null, role: 'standalone' }]);
    // memchr: 2.7.2 for grepper's "2.7", reused for regex's "^2.6.0" and aho-corasick's "^2.4.0".
    // regex: 1.10.4 (1.10.5 is yanked, 2.0.0-alpha.1 a pre-release of another major).
    // log (regex's `logging` feature) and quickcheck (regex's dev-dependency) are not pulled in.
    expect(inScope(result, 'required')).toEqual([
      'aho-corasick@1.1.3',
      'autocfg@1.2.0',
      'cc@1.0.90',
      'libc@0.2.153',
      'memchr@2.7.2',
      'pcre2-sys@0.2.9',
      'pcre2@0.2.7',
      'regex-syntax@0.8.3',
      'regex@1.10.4',
      'same-file@1.0.6',
      'walkdir@2.5.0',
      'winapi-util@0.1.6',
    ]);
    expect(inScope(result, 'dev')).toEqual(['fastrand@2.0.2', 'tempfile@3.10.1']);
    expect(inScope(result, 'optional')).toEqual([]);
    expect(edgesOf(result).filter((e) => e.startsWith('regex@'))).toEqual([
      'regex@1.10.4 -> aho-corasick@1.1.3 (prod)',
      'regex@1.10.4 -> memchr@2.7.2 (prod)',
      'regex@1.10.4 -> regex-syntax@0.8.3 (prod)',
    ]);
    expect(inventory.declarations.map((d) => [d.name, d.range])).toEqual([
      ['local-utils', 'path+../utils'],
      ['fancy', 'git+https://github.com/example/fancy?tag=v0.1.0'],
    ]);
    expect(registry.requests).not.toContain('/api/v1/crates/log');
    expect(registry.requests).not.toContain('/api/v1/crates/quickcheck');
    // One crate document per crate, one dependency list per chosen version.
    expect(registry.requests.filter((p) => p === '/api/v1/crates/memchr')).toHaveLength(1);
    expect(registry.requests.filter((p) => p.endsWith('/dependencies'))).toHaveLength(inventory.occurrences.length - 1);
    expect(inventory.occurrences).toHaveLength(15);
  });

  it('a requirement nothing satisfies stays a declaration; a registry answering 500 leaves every requirement declared', async () => {
    const { endpoint } = await startRegistry({ crates: { ...CRATES, regex: { versions: { '0.2.0': {} } } } });
    const partial = await buildFiles(cargoUpload('manifest-only'), cargoEcosystem(endpoint));
    expect(partial.inventory.resolutions[0]?.outcome).toBe('resolved');
    expect(partial.inventory.declarations.map((d) => d.name)).toEqual(['regex', 'local-utils', 'fancy']);

    const failing = await startRegistry({ statusFor: () => 500 });
    const failed = await buildFiles(cargoUpload('manifest-only'), cargoEcosystem(failing.endpoint));
    expect(failed.inventory.resolutions).toEqual([
      { manifest: 'Cargo.toml', outcome: 'resolution_failed', detail: 'crates.io could not be reached; its requirements are listed as declarations' },
    ]);
    expect(failed.inventory.declarations).toHaveLength(9);
    expect(failed.inventory.occurrences.map((o) => o.name)).toEqual(['grepper']);

    const refusing = await startRegistry({ statusFor: () => 403 });
    const refused = await buildFiles(cargoUpload('manifest-only'), cargoEcosystem(refusing.endpoint));
    expect(refused.inventory.resolutions[0]?.detail).toBe('crates.io refused the request; its requirements are listed as declarations');
  });

  it('a registry answering documents of unexpected shapes resolves nothing from them and never throws', async () => {
    const shapes: unknown[] = [[], 'text', 42, { versions: 'x' }, { versions: [{ num: 7 }, { num: '1.0.0', features: [1] }] }, { dependencies: [{ crate_id: 5 }, null] }];
    for (const shape of shapes) {
      const { endpoint } = await startRegistry({ crates: CRATES, rawFor: (path) => (path.startsWith('/api/v1/crates/regex') ? shape : undefined) });
      const { inventory, problems } = await buildFiles(cargoUpload('manifest-only'), cargoEcosystem(endpoint));
      expect(problems).toEqual([]);
      expect(inventory.resolutions[0]?.outcome).toBe('resolved');
      // regex got nothing usable: it stays declared unless the shape still gave it a version.
      const regex = inventory.occurrences.find((o) => o.name === 'regex');
      expect(regex === undefined ? inventory.declarations.some((d) => d.name === 'regex') : regex.version === '1.0.0').toBe(true);
    }
  });

  it('reads Cargo requirements with Cargo’s meaning', () => {
    expect(cargoRange('1.2')).toBe('^1.2');
    expect(cargoRange('0.2.146')).toBe('^0.2.146');
    expect(cargoRange('>= 1.0, < 2')).toBe('>=1.0 <2');
    expect(cargoRange('~1.2.3')).toBe('~1.2.3');
    expect(cargoRange('=1.0.0')).toBe('=1.0.0');
    expect(cargoRange('*')).toBe('*');
    expect(cargoRange('')).toBe('*');
    expect(cargoRange('not a version')).toBeNull();
  });
});
