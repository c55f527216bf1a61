import { createRequire } from 'node:module';
import { claimCargo } from './cargo/detect.js';
import { claimCocoapods } from './cocoapods/detect.js';
import { claimComposer } from './composer/detect.js';
import { claimGem } from './gem/detect.js';
import { claimGoFile } from './golang/detect.js';
import { claimHex } from './hex/detect.js';
import { claimJvmFile } from './maven/detect.js';
import { npmEcosystem, type NpmEcosystemOptions } from './npm/index.js';
import { claimNuget } from './nuget/detect.js';
import { claimPub } from './pub/detect.js';
import { claimPython } from './pypi/detect.js';
import { claimSwift } from './swift/detect.js';
import type { Ecosystem, EcosystemId, RegistryEndpoint, RegistryKey } from './types.js';
import type * as Golang from './golang/index.js';
import type * as Pypi from './pypi/index.js';
import type * as Cargo from './cargo/index.js';
import type * as Maven from './maven/index.js';
import type * as Gem from './gem/index.js';
import type * as Composer from './composer/index.js';
import type * as Swift from './swift/index.js';
import type * as Cocoapods from './cocoapods/index.js';
import type * as Hex from './hex/index.js';
import type * as Pub from './pub/index.js';
import type * as Nuget from './nuget/index.js';

/** What detection needs of an ecosystem whose modules load with its first file. */
interface DeferredEcosystem<Module> {
  /** Also the name of its folder. */
  readonly id: EcosystemId;
  readonly label: string;
  readonly claim: Ecosystem['claim'];
  /** Its `PACKAGE_REGISTRIES` key; with none configured (or none at all) it has no registry metadata. */
  readonly registry: RegistryKey | null;
  readonly make: (module: Module, endpoint: RegistryEndpoint | null) => Ecosystem;
}

/**
 * The index module of the ecosystem folder `name`, imported. The template names the folder so
 * that the CLI's bundler (scripts/bundle-cli.js) finds every ecosystem and makes each a chunk
 * loaded on demand. Running from the sources in a worker thread under tsx (the tests' analysis
 * threads), a dynamic import of a TypeScript module is not resolved: there it is required
 * through tsx's CommonJS hook instead. Built code always imports.
 */
async function sibling<T>(name: string): Promise<T> {
  try {
    // Vite (the tests) leaves it to run time, as a variable import: its own expansion of the
    // template looks for files ending in .js, which the sources are not.
    return (await import(/* @vite-ignore */ `./${name}/index.js`)) as T;
  } catch (error) {
    if (!import.meta.url.endsWith('.ts') || (error as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return createRequire(import.meta.url)(`./${name}/index.ts`) as T;
  }
}

/**
 * An ecosystem known by its name and its file claims until a file of it is met, then loaded
 * whole (its parsers, resolver, registry client). npm, met in most analyses, loads at once; the
 * other eleven held a tenth of a warm CLI run's wall time in module loading, for nothing when
 * no file of theirs is uploaded.
 */
function deferred<Module>(d: DeferredEcosystem<Module>, registries: EcosystemsOptions['registries']): Ecosystem {
  const endpoint = d.registry === null ? null : (registries[d.registry] ?? null);
  let loading: Promise<Ecosystem> | undefined;
  let loaded: Ecosystem | null = null;
  const load = (): Promise<Ecosystem> =>
    (loading ??= sibling<Module>(d.id).then((module) => {
      loaded = d.make(module, endpoint);
      return loaded;
    }));
  const ready = (): Ecosystem => {
    if (loaded === null) throw new Error(`the ${d.label} ecosystem was used before prepare()`);
    return loaded;
  };
  return {
    id: d.id,
    label: d.label,
    claim: d.claim,
    prepare: async () => {
      await load();
    },
    build: async (files, ctx) => (await load()).build(files, ctx),
    purl: (occurrence) => ready().purl(occurrence),
    countManifests: (files) => ready().countManifests?.(files) ?? files.filter((f) => f.role === 'manifest').length,
    // The enricher must know now whether the ecosystem has registry metadata.
    metadata: endpoint !== null ? { fetch: async (name, version, signal) => ((await load()).metadata?.fetch(name, version, signal) ?? null) } : null,
  };
}

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
  const { registries } = options;
  const maven = { resolutionTimeoutMs: options.resolutionTimeoutMs, allowedRepositories: options.mavenAllowedRepositories ?? [] };
  return [
    npmEcosystem(options.npm),
    deferred<typeof Golang>({ id: 'golang', label: 'Go', claim: claimGoFile, registry: 'go', make: (m, e) => m.golangEcosystem(e) }, registries),
    deferred<typeof Pypi>({ id: 'pypi', label: 'Python', claim: claimPython, registry: 'pypi', make: (m, e) => m.pypiEcosystem(e) }, registries),
    deferred<typeof Cargo>({ id: 'cargo', label: 'Rust', claim: claimCargo, registry: 'crates', make: (m, e) => m.cargoEcosystem(e) }, registries),
    deferred<typeof Maven>({ id: 'maven', label: 'Maven', claim: claimJvmFile, registry: 'maven', make: (m, e) => m.mavenEcosystem(e, maven) }, registries),
    deferred<typeof Gem>({ id: 'gem', label: 'Ruby', claim: claimGem, registry: 'rubygems', make: (m, e) => m.gemEcosystem(e) }, registries),
    deferred<typeof Composer>({ id: 'composer', label: 'PHP', claim: claimComposer, registry: 'packagist', make: (m, e) => m.composerEcosystem(e) }, registries),
    deferred<typeof Swift>({ id: 'swift', label: 'Swift', claim: claimSwift, registry: null, make: (m) => m.swiftEcosystem() }, registries),
    deferred<typeof Cocoapods>({ id: 'cocoapods', label: 'CocoaPods', claim: claimCocoapods, registry: 'cocoapods', make: (m, e) => m.cocoapodsEcosystem(e) }, registries),
    deferred<typeof Hex>({ id: 'hex', label: 'Elixir', claim: claimHex, registry: 'hex', make: (m, e) => m.hexEcosystem(e) }, registries),
    deferred<typeof Pub>({ id: 'pub', label: 'Dart', claim: claimPub, registry: 'pub', make: (m, e) => m.pubEcosystem(e) }, registries),
    deferred<typeof Nuget>({ id: 'nuget', label: '.NET', claim: claimNuget, registry: 'nuget', make: (m, e) => m.nugetEcosystem(e) }, registries),
  ];
}

/** The ecosystems with no registry access: the CLI's `--offline`, and analyses given no registry. */
export function offlineEcosystems(): Ecosystem[] {
  return createEcosystems({ npm: { resolver: null, metadata: null }, registries: {} });
}
