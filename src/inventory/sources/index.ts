import type { RegistryKey } from '../../sbom/ecosystems/types.js';
import { registryHttp } from '../../registry/http.js';
import type { NpmOptions } from '../../registry/npm-options.js';
import { CratesPackageSource } from './crates.js';
import { NpmPackageSource } from './npm.js';
import { PypiPackageSource } from './pypi.js';
import type { PackageSources } from './registry-source.js';

/** The package sources of every registry with package targets, at the `PACKAGE_REGISTRIES` base URLs. */
export function packageSources(npmOptions: NpmOptions, registries: Readonly<Record<RegistryKey, string>>, resolutionTimeoutMs: number): PackageSources {
  // Short deadlines (never beyond the resolution timeout) and one retry: a list request is waiting on the version lookup.
  const http = registryHttp({ timeoutMs: Math.min(15_000, resolutionTimeoutMs), retries: 1, maxBytes: 32 * 1024 * 1024 });
  return {
    npm: new NpmPackageSource(npmOptions),
    crates: new CratesPackageSource(registries.crates, http),
    pypi: new PypiPackageSource(registries.pypi, http),
  };
}
