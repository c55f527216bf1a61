import { loadModule } from '../shared/load-module.js';
import { registration } from '../registration.js';
import { claimSwift } from './detect.js';

export const swift = registration({
  id: 'swift',
  label: 'Swift',
  purlType: 'swift',
  registries: [],
  detect: { files: ['Package.resolved', 'Package.swift', 'Package@swift-*.swift'], claim: claimSwift },
  analysis: {
    loaded: 'with-first-file',
    create: async () => (await loadModule(import.meta.url, './analysis.js', () => import('./analysis.js'))).swiftEcosystem(),
  },
});
