import { loadModule } from '../shared/load-module.js';
import { baseOf, registration } from '../registration.js';
import { registryDefault } from '../registries.js';
import { claimHex } from './detect.js';

/** Hex names: lower-case identifiers. */
const IDENTIFIER = /^[a-z][a-z0-9_]{0,63}$/;

/** Its package source's module, loaded when the service starts (see ecosystems/sources.ts). */
const sourceModule = () => loadModule(import.meta.url, './source.js', () => import('./source.js'));

export const hex = registration({
  id: 'hex',
  label: 'Elixir',
  purlType: 'hex',
  registries: [registryDefault('hex'), registryDefault('hex_repo')],
  detect: { files: ['mix.lock', 'rebar.lock', 'mix.exs'], claim: claimHex },
  analysis: {
    loaded: 'with-first-file',
    create: async (endpoint) => (await loadModule(import.meta.url, './analysis.js', () => import('./analysis.js'))).hexEcosystem(endpoint),
  },
  packages: {
    prefixes: ['hex'],
    name: (given) => (IDENTIFIER.test(given) ? given : null),
    spec: 'clauses',
    load: sourceModule,
    source: async ({ registries, http }) => new (await sourceModule()).HexPackageSource(baseOf(registries, 'hex'), baseOf(registries, 'hex_repo'), http),
    inspect: async (context) => (await loadModule(import.meta.url, './inspect.js', () => import('./inspect.js'))).inspector(context),
  },
});
