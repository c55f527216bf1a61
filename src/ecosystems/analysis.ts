import { ECOSYSTEMS } from './index.js';
import type { EcosystemRegistration, EcosystemsOptions } from './registration.js';
import type { Ecosystem, RegistryEndpoint } from './types.js';

export type { EcosystemsOptions };

/**
 * An ecosystem known by its name and its file claims until a file of it is met, then loaded
 * whole (its parsers, resolver, registry client). npm, met in most analyses, loads at once; the
 * other eleven held a tenth of a warm CLI run's wall time in module loading, for nothing when
 * no file of theirs is uploaded.
 */
function deferred(r: EcosystemRegistration, create: (endpoint: RegistryEndpoint | null, options: EcosystemsOptions) => Promise<Ecosystem>, options: EcosystemsOptions): Ecosystem {
  const key = r.registries[0]?.key;
  const endpoint = key === undefined ? null : (options.registries[key] ?? null);
  let loading: Promise<Ecosystem> | undefined;
  let loaded: Ecosystem | null = null;
  const load = (): Promise<Ecosystem> =>
    (loading ??= create(endpoint, options).then((ecosystem) => {
      loaded = ecosystem;
      return loaded;
    }));
  const ready = (): Ecosystem => {
    if (loaded === null) throw new Error(`the ${r.label} ecosystem was used before prepare()`);
    return loaded;
  };
  return {
    id: r.id,
    label: r.label,
    claim: r.detect.claim,
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

/**
 * Every ecosystem the analysis knows, in registration order (the tie-break of detection). Made
 * once per process: the modules hold registry clients whose in-flight requests are shared.
 */
export function createEcosystems(options: EcosystemsOptions): Ecosystem[] {
  return ECOSYSTEMS.map((r: EcosystemRegistration) => (r.analysis.loaded === 'at-once' ? r.analysis.create(options) : deferred(r, r.analysis.create, options)));
}

/** The ecosystems with no registry access: the CLI's `--offline`, and analyses given no registry. */
export function offlineEcosystems(): Ecosystem[] {
  return createEcosystems({ npm: { resolver: null, metadata: null }, registries: {} });
}
