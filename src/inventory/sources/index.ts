import { createOutgoing, type Outgoing } from '../../net/dispatchers.js';
import type { RegistryKey } from '../../sbom/ecosystems/types.js';
import { registryHttp } from '../../registry/http.js';
import type { NpmOptions } from '../../registry/npm-options.js';
import type { SourceHttp } from './archive.js';
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

/** The outgoing HTTP of package targets: npm's own when npm's configuration names its CAs. */
export interface TargetOutgoing {
  readonly registries: Outgoing;
  readonly npm: Outgoing;
  close(): Promise<void>;
}

/** npm's `ca` setting (it replaces Node's CAs for npm's registries only), or null. */
function npmCa(options: NpmOptions): string | readonly string[] | null {
  const ca = options['ca'];
  if (typeof ca === 'string' && ca !== '') return ca;
  return Array.isArray(ca) && ca.length > 0 && ca.every((c) => typeof c === 'string') ? ca : null;
}

/**
 * The outgoing HTTP of package targets (metadata, archives, every redirect hop) under the address
 * policy: public addresses, plus the registries an operator configured (`PACKAGE_REGISTRIES`
 * bases, npm's registry and scoped registries), or every address when `allowPrivate`.
 */
export function targetOutgoing(npmOptions: NpmOptions, registries: Readonly<Record<RegistryKey, string>>, allowPrivate: boolean): TargetOutgoing {
  const npmRegistries = Object.entries(npmOptions)
    .filter(([key, value]) => (key === 'registry' || /^@[^:]+:registry$/.test(key)) && typeof value === 'string')
    .map(([, value]) => value as string);
  const policy = { trusted: [...Object.values(registries), ...npmRegistries], allowPrivate };
  const shared = createOutgoing(policy);
  const ca = npmCa(npmOptions);
  const npm = ca === null ? shared : createOutgoing({ ...policy, ca });
  return {
    registries: shared,
    npm,
    close: async () => {
      await Promise.all([shared.close(), npm.close()]);
    },
  };
}

/** The package sources of every registry with package targets, at the `PACKAGE_REGISTRIES` base URLs, fetching through `outgoing`. */
export function packageSources(npmOptions: NpmOptions, registries: Readonly<Record<RegistryKey, string>>, resolutionTimeoutMs: number, outgoing: TargetOutgoing): PackageSources {
  // Short deadlines (never beyond the resolution timeout) and one retry: a list request is waiting on the version lookup.
  const clientThrough = (through: Outgoing): SourceHttp => ({
    ...registryHttp({ timeoutMs: Math.min(15_000, resolutionTimeoutMs), retries: 1, maxBytes: 32 * 1024 * 1024, dispatcher: through.dispatcher }),
    archives: through.following,
  });
  const http = clientThrough(outgoing.registries);
  return {
    npm: new NpmPackageSource(npmOptions, { http: outgoing.npm === outgoing.registries ? http : clientThrough(outgoing.npm), outgoing: outgoing.npm }),
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
