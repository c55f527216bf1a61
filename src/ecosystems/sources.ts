import { createOutgoing, type Outgoing } from '../net/dispatchers.js';
import { registryHttp } from './shared/http.js';
import type { NpmOptions } from './npm/options.js';
import type { SourceHttp } from './shared/archive.js';
import type { PackageInspector } from './shared/inspect.js';
import type { PackageRegistrySource, PackageSources } from './shared/package-source.js';
import { ECOSYSTEMS, type RegistryKey } from './index.js';
import { npm } from './npm/index.js';
import type { PackageTargets, SourceContext } from './registration.js';

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

/**
 * The package sources' modules load with this one (a process that serves package targets imports
 * it), as static imports would: no request waits for one, and the CLI, which does not import
 * this module, never loads them.
 */
await Promise.all(ECOSYSTEMS.flatMap((e) => ('packages' in e ? [e.packages.load()] : [])));

/** A registry's package source, made (from its module, already loaded) at its first call. */
function sourceOf(make: () => Promise<PackageRegistrySource>): PackageRegistrySource {
  let made: Promise<PackageRegistrySource> | undefined;
  const source = (): Promise<PackageRegistrySource> => (made ??= make());
  return {
    lookup: async (name, spec) => (await source()).lookup(name, spec),
    provenance: async (name, version) => (await source()).provenance(name, version),
    read: async (version, limits, onFile) => (await source()).read(version, limits, onFile),
  };
}

/** What every package source (and inspection) of the process is made from: one HTTP client per outgoing stack. */
export function sourceContext(npmOptions: NpmOptions, registries: Readonly<Record<RegistryKey, string>>, resolutionTimeoutMs: number, outgoing: TargetOutgoing): SourceContext {
  // Short deadlines (never beyond the resolution timeout) and one retry: a list request is waiting on the version lookup.
  const clientThrough = (through: Outgoing): SourceHttp => ({
    ...registryHttp({ timeoutMs: Math.min(15_000, resolutionTimeoutMs), retries: 1, maxBytes: 32 * 1024 * 1024, dispatcher: through.dispatcher }),
    archives: through.following,
  });
  const http = clientThrough(outgoing.registries);
  return {
    registries,
    http,
    npm: { options: npmOptions, http: outgoing.npm === outgoing.registries ? http : clientThrough(outgoing.npm), outgoing: outgoing.npm },
  };
}

/** The package sources of every registry with package targets, made from `context` (see `sourceContext`). */
export function packageSourcesOf(context: SourceContext): PackageSources {
  const sources: Record<string, PackageRegistrySource> = {};
  for (const ecosystem of ECOSYSTEMS) {
    // npm's source is made below, under its own key's type.
    if (!('packages' in ecosystem) || ecosystem.id === npm.id) continue;
    const { packages } = ecosystem;
    sources[packages.prefixes[0]] = sourceOf(() => packages.source(context));
  }
  return { ...sources, npm: sourceOf(() => npm.packages.source(context)) };
}

/** The package sources of every registry with package targets, at the `PACKAGE_REGISTRIES` base URLs, fetching through `outgoing`. */
export function packageSources(npmOptions: NpmOptions, registries: Readonly<Record<RegistryKey, string>>, resolutionTimeoutMs: number, outgoing: TargetOutgoing): PackageSources {
  return packageSourcesOf(sourceContext(npmOptions, registries, resolutionTimeoutMs, outgoing));
}

/** Package inspection per registry (the first target prefix), for every registration that has one; each made at its first call. */
export function packageInspectorsOf(context: SourceContext): Readonly<Partial<Record<string, PackageInspector>>> {
  const inspectors: Record<string, PackageInspector> = {};
  for (const ecosystem of ECOSYSTEMS) {
    if (!('packages' in ecosystem)) continue;
    const packages: PackageTargets = ecosystem.packages;
    const make = packages.inspect;
    if (make === undefined) continue;
    let made: Promise<PackageInspector> | undefined;
    const inspector = (): Promise<PackageInspector> => (made ??= make(context));
    inspectors[packages.prefixes[0]] = {
      package: async (name) => (await inspector()).package(name),
      release: async (name, version, known) => (await inspector()).release(name, version, known),
    };
  }
  return inspectors;
}
