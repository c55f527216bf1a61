import { loadModule } from '../shared/load-module.js';
import { baseOf, registration } from '../registration.js';
import { registryDefault } from '../registries.js';
import { claimGoFile } from './detect.js';

/** Go module paths (https://go.dev/ref/mod#go-mod-file-ident): slash-separated elements, the first a host with a dot. */
const GO_MODULE = /^[a-z0-9.-]+\.[a-z]{2,}(?::\d+)?(?:\/[A-Za-z0-9._~-]+)*$/;

/** Its package source's module, loaded when the service starts (see ecosystems/sources.ts). */
const sourceModule = () => loadModule(import.meta.url, './source.js', () => import('./source.js'));

export const golang = registration({
  id: 'golang',
  label: 'Go',
  purlType: 'golang',
  registries: [registryDefault('go')],
  detect: { files: ['go.mod', 'go.sum', 'go.work', 'go.work.sum'], claim: claimGoFile },
  analysis: {
    loaded: 'with-first-file',
    create: async (endpoint) => (await loadModule(import.meta.url, './analysis.js', () => import('./analysis.js'))).golangEcosystem(endpoint),
  },
  packages: {
    prefixes: ['go', 'golang'],
    name: (given) => (GO_MODULE.test(given) && !given.split('/').some((e) => e === '.' || e === '..' || e.endsWith('.')) ? given : null),
    spec: 'one-clause',
    load: sourceModule,
    source: async ({ registries, http }) => new (await sourceModule()).GoPackageSource(baseOf(registries, 'go'), http),
    inspect: async (context) => (await loadModule(import.meta.url, './inspect.js', () => import('./inspect.js'))).inspector(context),
  },
});
