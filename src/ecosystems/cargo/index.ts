import { loadModule } from '../shared/load-module.js';
import { baseOf, registration } from '../registration.js';
import { registryDefault } from '../registries.js';
import { claimCargo } from './detect.js';

/** crates.io names: ASCII letter first, then letters, digits, `-` and `_`, at most 64; compared lower-cased. */
const CRATE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** Its package source's module, loaded when the service starts (see ecosystems/sources.ts). */
const sourceModule = () => loadModule(import.meta.url, './source.js', () => import('./source.js'));

export const cargo = registration({
  id: 'cargo',
  label: 'Rust',
  purlType: 'cargo',
  registries: [registryDefault('crates')],
  detect: { files: ['Cargo.lock', 'Cargo.toml'], claim: claimCargo },
  analysis: {
    loaded: 'with-first-file',
    create: async (endpoint) => (await loadModule(import.meta.url, './analysis.js', () => import('./analysis.js'))).cargoEcosystem(endpoint),
  },
  packages: {
    prefixes: ['crates', 'cargo'],
    name: (given) => (CRATE_NAME.test(given) ? given.toLowerCase() : null),
    spec: 'one-clause',
    load: sourceModule,
    source: async ({ registries, http }) => new (await sourceModule()).CratesPackageSource(baseOf(registries, 'crates'), http),
    inspect: async (context) => (await loadModule(import.meta.url, './inspect.js', () => import('./inspect.js'))).inspector(context),
  },
});
