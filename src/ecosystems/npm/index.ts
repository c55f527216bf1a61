import validateName from 'validate-npm-package-name';
import { loadModule } from '../shared/load-module.js';
import { registration } from '../registration.js';
import { npmEcosystem } from './analysis.js';
import { claimNpm, NPM_FILE_NAMES } from './detect.js';

/** Its package source's module, loaded when the service starts (see ecosystems/sources.ts). */
const sourceModule = () => loadModule(import.meta.url, './source.js', () => import('./source.js'));

export const npm = registration({
  id: 'npm',
  label: 'npm',
  purlType: 'npm',
  // npm's own configuration (.npmrc) names its registries, not PACKAGE_REGISTRIES.
  registries: [],
  detect: { files: [...NPM_FILE_NAMES], claim: claimNpm },
  analysis: { loaded: 'at-once', create: (options) => npmEcosystem(options.npm) },
  packages: {
    prefixes: ['npm'],
    name: (given) => (validateName(given).validForOldPackages ? given : null),
    spec: 'as-given',
    load: sourceModule,
    source: async ({ npm }) => new (await sourceModule()).NpmPackageSource(npm.options, { http: npm.http, outgoing: npm.outgoing }),
    inspect: async (context) => (await loadModule(import.meta.url, './inspect.js', () => import('./inspect.js'))).inspector(context),
  },
});
