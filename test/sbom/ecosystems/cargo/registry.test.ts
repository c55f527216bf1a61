import { afterEach, describe, expect, it } from 'vitest';
import { cargoEcosystem } from '../../../../src/sbom/ecosystems/cargo/index.js';
import { registryHttp } from '../../../../src/registry/http.js';
import { TransientAnalysisError } from '../../../../src/sbom/types.js';
import { startCratesRegistry, type CratesRegistry } from '../../../helpers/crates-registry.js';
import { buildFiles, cargoUpload } from './helpers.js';

let registry: CratesRegistry | null = null;
let http: ReturnType<typeof registryHttp> | null = null;

afterEach(async () => {
  await http?.close();
  await registry?.close();
  registry = null;
  http = null;
});

async function clientFor(reg: CratesRegistry, timeoutMs = 5_000) {
  http = registryHttp({ timeoutMs, retries: 0, userAgent: 'pkgscope-test (fixture)' });
  const metadata = cargoEcosystem({ base: reg.url, http }).metadata;
  if (metadata === null) throw new Error('no metadata client');
  return metadata;
}

describe('crates.io metadata', () => {
  it('reads license, description, homepage and repository from the version document alone', async () => {
    registry = await startCratesRegistry({
      crates: {
        serde: {
          description: 'A generic serialization/deserialization framework',
          homepage: 'https://serde.rs',
          repository: 'https://github.com/serde-rs/serde',
          versions: { '1.0.197': { license: 'MIT OR Apache-2.0' } },
        },
      },
    });
    const metadata = await clientFor(registry);
    expect(await metadata.fetch('serde', '1.0.197')).toEqual({
      license: 'MIT OR Apache-2.0',
      description: 'A generic serialization/deserialization framework',
      homepage: 'https://serde.rs',
      repository: 'https://github.com/serde-rs/serde',
      author: null,
      deprecated: null,
    });
    expect(registry.requests).toEqual(['/api/v1/crates/serde/1.0.197']);
    expect(registry.userAgents).toEqual(['pkgscope-test (fixture)']);
  });

  it('asks for the crate document only when the version document predates the descriptive fields', async () => {
    registry = await startCratesRegistry({
      legacyVersionDocs: true,
      crates: { log: { description: 'A lightweight logging facade', repository: 'https://github.com/rust-lang/log', versions: { '0.4.21': { license: 'MIT OR Apache-2.0' } } } },
    });
    const metadata = await clientFor(registry);
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
    registry = await startCratesRegistry({
      crates: { 'old-crate': { versions: { '0.1.0': { license: 'MIT', yanked: true, yank_message: 'security issue, use 0.1.1' } } } },
    });
    const metadata = await clientFor(registry);
    expect((await metadata.fetch('old-crate', '0.1.0'))?.deprecated).toBe('security issue, use 0.1.1');
    expect(await metadata.fetch('old-crate', '9.9.9')).toBeNull();
    expect(await metadata.fetch('no-such-crate', '1.0.0')).toBeNull();
  });

  it('a registry answering 500 fails the coordinate with a transient error', async () => {
    registry = await startCratesRegistry({ statusFor: () => 500 });
    const metadata = await clientFor(registry);
    await expect(metadata.fetch('serde', '1.0.197')).rejects.toBeInstanceOf(TransientAnalysisError);
    expect(registry.requests).toEqual(['/api/v1/crates/serde/1.0.197']);
  });

  it('a registry that never answers fails fast at the deadline, and the lockfile facts stay', async () => {
    registry = await startCratesRegistry({ hangFor: () => true });
    const metadata = await clientFor(registry, 300);
    await expect(metadata.fetch('bytes', '1.5.0')).rejects.toBeInstanceOf(TransientAnalysisError);
    // The analysis keeps what Cargo.lock recorded: the components do not depend on the registry.
    const { inventory } = await buildFiles(cargoUpload('v4-git'), cargoEcosystem({ base: registry.url, http: http ?? registryHttp() }));
    expect(inventory.occurrences.find((o) => o.name === 'bytes')?.integrity).toMatch(/^sha256-/);
  });

  it('offline (no registry), the ecosystem has no metadata client', () => {
    expect(cargoEcosystem(null).metadata).toBeNull();
  });

  it('appends the API paths to a base URL with a path, encoding names', async () => {
    registry = await startCratesRegistry();
    http = registryHttp({ timeoutMs: 5_000, retries: 0 });
    const metadata = cargoEcosystem({ base: `${registry.url}/`, http }).metadata;
    expect(await metadata?.fetch('serde_json', '1.0.0+build.1')).toBeNull();
    expect(registry.requests).toEqual(['/api/v1/crates/serde_json/1.0.0%2Bbuild.1']);
  });
});
