import { loadModule } from '../shared/load-module.js';
import { baseOf, registration } from '../registration.js';
import { registryDefault } from '../registries.js';
import { claimGem } from './detect.js';

/** RubyGems names: letters, digits, `.`, `-`, `_`; case-sensitive. */
const GEM_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Its package source's module, loaded when the service starts (see ecosystems/sources.ts). */
const sourceModule = () => loadModule(import.meta.url, './source.js', () => import('./source.js'));

export const gem = registration({
  id: 'gem',
  label: 'Ruby',
  purlType: 'gem',
  registries: [registryDefault('rubygems')],
  detect: { files: ['Gemfile', 'Gemfile.lock', 'gems.rb', 'gems.locked', '*.gemfile', '*.gemfile.lock', '*.gemspec'], claim: claimGem },
  analysis: {
    loaded: 'with-first-file',
    create: async (endpoint) => (await loadModule(import.meta.url, './analysis.js', () => import('./analysis.js'))).gemEcosystem(endpoint),
  },
  packages: {
    prefixes: ['rubygems', 'gem'],
    name: (given) => (GEM_NAME.test(given) ? given : null),
    spec: 'clauses',
    load: sourceModule,
    source: async ({ registries, http }) => new (await sourceModule()).RubygemsPackageSource(baseOf(registries, 'rubygems'), http),
    inspect: async (context) => (await loadModule(import.meta.url, './inspect.js', () => import('./inspect.js'))).inspector(context),
  },
});
