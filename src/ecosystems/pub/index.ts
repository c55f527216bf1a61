import { loadModule } from '../shared/load-module.js';
import { baseOf, registration } from '../registration.js';
import { registryDefault } from '../registries.js';
import { claimPub } from './detect.js';

/** pub names: lower-case identifiers. */
const IDENTIFIER = /^[a-z][a-z0-9_]{0,63}$/;

/** Its package source's module, loaded when the service starts (see ecosystems/sources.ts). */
const sourceModule = () => loadModule(import.meta.url, './source.js', () => import('./source.js'));

export const pub = registration({
  id: 'pub',
  label: 'Dart',
  purlType: 'pub',
  registries: [registryDefault('pub')],
  detect: { files: ['pubspec.lock', 'pubspec.yaml'], claim: claimPub },
  analysis: {
    loaded: 'with-first-file',
    create: async (endpoint) => (await loadModule(import.meta.url, './analysis.js', () => import('./analysis.js'))).pubEcosystem(endpoint),
  },
  packages: {
    prefixes: ['pub'],
    name: (given) => (IDENTIFIER.test(given) ? given : null),
    spec: 'clauses',
    load: sourceModule,
    source: async ({ registries, http }) => new (await sourceModule()).PubPackageSource(baseOf(registries, 'pub'), http),
    inspect: async (context) => (await loadModule(import.meta.url, './inspect.js', () => import('./inspect.js'))).inspector(context),
  },
});
