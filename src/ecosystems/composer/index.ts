import { loadModule } from '../shared/load-module.js';
import { baseOf, registration } from '../registration.js';
import { registryDefault } from '../registries.js';
import { claimComposer } from './detect.js';

/** Composer names `<vendor>/<name>`, lower-case. */
const COMPOSER_NAME = /^[a-z0-9](?:[_.-]?[a-z0-9]+)*\/[a-z0-9](?:(?:[_.]|-{1,2})?[a-z0-9]+)*$/;

/** Its package source's module, loaded when the service starts (see ecosystems/sources.ts). */
const sourceModule = () => loadModule(import.meta.url, './source.js', () => import('./source.js'));

export const composer = registration({
  id: 'composer',
  label: 'PHP',
  purlType: 'composer',
  registries: [registryDefault('packagist')],
  detect: { files: ['composer.json', 'composer.lock', 'composer-*.json', 'composer-*.lock'], claim: claimComposer },
  analysis: {
    loaded: 'with-first-file',
    create: async (endpoint) => (await loadModule(import.meta.url, './analysis.js', () => import('./analysis.js'))).composerEcosystem(endpoint),
  },
  packages: {
    prefixes: ['packagist', 'composer'],
    name: (given) => (COMPOSER_NAME.test(given.toLowerCase()) ? given.toLowerCase() : null),
    spec: 'clauses',
    load: sourceModule,
    source: async ({ registries, http }) => new (await sourceModule()).PackagistPackageSource(baseOf(registries, 'packagist'), http),
    inspect: async (context) => (await loadModule(import.meta.url, './inspect.js', () => import('./inspect.js'))).inspector(context),
  },
});
