import type { RegistryKey } from '../../sbom/ecosystems/types.js';
import { registryHttp } from '../../registry/http.js';
import type { NpmOptions } from '../../registry/npm-options.js';
import { CratesPackageSource } from './crates.js';
import { GoPackageSource } from './go.js';
import { HexPackageSource } from './hex.js';
import { MavenPackageSource } from './maven.js';
import { NpmPackageSource } from './npm.js';
import { NugetPackageSource } from './nuget.js';
import { PackagistPackageSource } from './packagist.js';
import { PubPackageSource } from './pub.js';
import { PypiPackageSource } from './pypi.js';
import type { PackageSources } from './registry-source.js';
import { RubygemsPackageSource } from './rubygems.js';

/** The package sources of every registry with package targets, at the `PACKAGE_REGISTRIES` base URLs. */
export function packageSources(npmOptions: NpmOptions, registries: Readonly<Record<RegistryKey, string>>, resolutionTimeoutMs: number): PackageSources {
  // Short deadlines (never beyond the resolution timeout) and one retry: a list request is waiting on the version lookup.
  const http = registryHttp({ timeoutMs: Math.min(15_000, resolutionTimeoutMs), retries: 1, maxBytes: 32 * 1024 * 1024 });
  return {
    npm: new NpmPackageSource(npmOptions),
    crates: new CratesPackageSource(registries.crates, http),
    pypi: new PypiPackageSource(registries.pypi, http),
    go: new GoPackageSource(registries.go, http),
    maven: new MavenPackageSource(registries.maven, http),
    rubygems: new RubygemsPackageSource(registries.rubygems, http),
    nuget: new NugetPackageSource(registries.nuget, http),
    packagist: new PackagistPackageSource(registries.packagist, http),
    pub: new PubPackageSource(registries.pub, http),
    hex: new HexPackageSource(registries.hex, registries.hex_repo, http),
  };
}
