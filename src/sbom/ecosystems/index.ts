import { cargoEcosystem } from './cargo/index.js';
import { cocoapodsEcosystem } from './cocoapods/index.js';
import { composerEcosystem } from './composer/index.js';
import { gemEcosystem } from './gem/index.js';
import { golangEcosystem } from './golang/index.js';
import { hexEcosystem } from './hex/index.js';
import { mavenEcosystem } from './maven/index.js';
import { npmEcosystem, type NpmEcosystemOptions } from './npm/index.js';
import { nugetEcosystem } from './nuget/index.js';
import { pubEcosystem } from './pub/index.js';
import { pypiEcosystem } from './pypi/index.js';
import { swiftEcosystem } from './swift/index.js';
import type { Ecosystem, RegistryEndpoint, RegistryKey } from './types.js';

export interface EcosystemsOptions {
  readonly npm: NpmEcosystemOptions;
  /** Registry access per `PACKAGE_REGISTRIES` key; an absent key leaves that ecosystem offline. */
  readonly registries: Partial<Readonly<Record<RegistryKey, RegistryEndpoint>>>;
  /** Deadline of resolving manifests without a lockfile (`RESOLUTION_TIMEOUT_MS`). */
  readonly resolutionTimeoutMs?: number;
  /** Repositories an uploaded POM may declare that Maven resolution searches too. */
  readonly mavenAllowedRepositories?: readonly string[];
}

/**
 * Every ecosystem the analysis knows, in registration order (the tie-break of detection). Made
 * once per process: the modules hold registry clients whose in-flight requests are shared.
 */
export function createEcosystems(options: EcosystemsOptions): Ecosystem[] {
  return [
    npmEcosystem(options.npm),
    golangEcosystem(options.registries.go ?? null),
    pypiEcosystem(options.registries.pypi ?? null),
    cargoEcosystem(options.registries.crates ?? null),
    mavenEcosystem(options.registries.maven ?? null, { resolutionTimeoutMs: options.resolutionTimeoutMs, allowedRepositories: options.mavenAllowedRepositories ?? [] }),
    gemEcosystem(options.registries.rubygems ?? null),
    composerEcosystem(options.registries.packagist ?? null),
    swiftEcosystem(),
    cocoapodsEcosystem(options.registries.cocoapods ?? null),
    hexEcosystem(options.registries.hex ?? null),
    pubEcosystem(options.registries.pub ?? null),
    nugetEcosystem(options.registries.nuget ?? null),
  ];
}

/** The ecosystems with no registry access: the CLI's `--offline`, and analyses given no registry. */
export function offlineEcosystems(): Ecosystem[] {
  return createEcosystems({ npm: { resolver: null, metadata: null }, registries: {} });
}
