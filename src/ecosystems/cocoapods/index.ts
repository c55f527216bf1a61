import { loadModule } from '../shared/load-module.js';
import { registration } from '../registration.js';
import { registryDefault } from '../registries.js';
import { claimCocoapods } from './detect.js';

export const cocoapods = registration({
  id: 'cocoapods',
  label: 'CocoaPods',
  purlType: 'cocoapods',
  registries: [registryDefault('cocoapods')],
  detect: { files: ['Podfile', 'Podfile.lock'], claim: claimCocoapods },
  analysis: {
    loaded: 'with-first-file',
    create: async (endpoint) => (await loadModule(import.meta.url, './analysis.js', () => import('./analysis.js'))).cocoapodsEcosystem(endpoint),
  },
});
