import { describe, expect, it } from 'vitest';
import { cargoEcosystem } from '../../../../src/ecosystems/cargo/analysis.js';
import { TransientAnalysisError } from '../../../../src/model/types.js';
import type { CratesRegistryOptions } from '../../../helpers/crates-registry.js';
import { buildFiles, cargoUpload, cratesFixtures } from './helpers.js';

const startRegistry = cratesFixtures();

async function clientFor(options: CratesRegistryOptions, timeoutMs?: number) {
  const { registry, endpoint } = await startRegistry(options, timeoutMs);
  const metadata = cargoEcosystem(endpoint).metadata;
  if (metadata === null) throw new Error('no metadata client');
  return { registry, endpoint, metadata };
}

describe('crates.io metadata', () => {
  it('reads license, description, homepage and repository from the version document alone', async () => {
    const { registry, metadata } = await clientFor({
      crates: {
        serde: {
          description: 'A generic serialization/deserialization framework',
          homepage: 'https://serde.rs',
          repository: 'https://github.com/serde-rs/serde',
          versions: { '1.0.197': { license: 'MIT OR Apache-2.0' } },
        },
      },
    });
    expect(await metadata.fetch('serde', '1.0.197')).toEqual({
      license: 'MIT OR Apache-2.0',
      description: 'A generic serialization/deserialization framework',
      homepage: 'https://serde.rs',
      repository: 'https://github.com/serde-rs/serde',
      author: null,
      deprecated: null,
      supplier: { kind: 'person', party: 'A Publisher (https://github.com/publisher)' },
    });
    expect(registry.requests).toEqual(['/api/v1/crates/serde/1.0.197']);
    expect(registry.userAgents).toEqual(['pkgscope-test (fixture)']);
  });

  it('asks for the crate document only when the version document predates the descriptive fields', async () => {
    const { registry, metadata } = await clientFor({
      legacyVersionDocs: true,
      crates: { log: { description: 'A lightweight logging facade', repository: 'https://github.com/rust-lang/log', versions: { '0.4.21': { license: 'MIT OR Apache-2.0' } } } },
    });
    const meta = await metadata.fetch('log', '0.4.21');
    expect([meta?.license, meta?.description, meta?.repository, meta?.homepage]).toEqual([
      'MIT OR Apache-2.0',
      'A lightweight logging facade',
      'https://github.com/rust-lang/log',
      null,
    ]);
    expect(registry.requests).toEqual(['/api/v1/crates/log/0.4.21', '/api/v1/crates/log']);
  });

  it('a yanked version is deprecated with its message; an unknown version is null', async () => {
    const { metadata } = await clientFor({
      crates: { 'old-crate': { versions: { '0.1.0': { license: 'MIT', yanked: true, yank_message: 'security issue, use 0.1.1' } } } },
    });
    expect((await metadata.fetch('old-crate', '0.1.0'))?.deprecated).toBe('security issue, use 0.1.1');
    expect(await metadata.fetch('old-crate', '9.9.9')).toBeNull();
    expect(await metadata.fetch('no-such-crate', '1.0.0')).toBeNull();
  });

  it('a registry answering 500 fails the coordinate with a transient error', async () => {
    const { registry, metadata } = await clientFor({ statusFor: () => 500 });
    await expect(metadata.fetch('serde', '1.0.197')).rejects.toBeInstanceOf(TransientAnalysisError);
    expect(registry.requests).toEqual(['/api/v1/crates/serde/1.0.197']);
  });

  it('a registry that never answers fails fast at the deadline, and the lockfile facts stay', async () => {
    const { endpoint, metadata } = await clientFor({ hangFor: () => true }, 300);
    await expect(metadata.fetch('bytes', '1.5.0')).rejects.toBeInstanceOf(TransientAnalysisError);
    // The analysis keeps what Cargo.lock recorded: the components do not depend on the registry.
    const { inventory } = await buildFiles(cargoUpload('v4-git'), cargoEcosystem(endpoint));
    expect(inventory.occurrences.find((o) => o.name === 'bytes')?.integrity).toMatch(/^sha256-/);
  });

  it('offline (no registry), the ecosystem has no metadata client', () => {
    expect(cargoEcosystem(null).metadata).toBeNull();
  });

  it('appends the API paths to a base URL with a path, encoding names', async () => {
    const { registry, endpoint } = await startRegistry();
    const metadata = cargoEcosystem({ ...endpoint, base: `${registry.url}/` }).metadata;
    expect(await metadata?.fetch('serde_json', '1.0.0+build.1')).toBeNull();
    expect(registry.requests).toEqual(['/api/v1/crates/serde_json/1.0.0%2Bbuild.1']);
  });
});
