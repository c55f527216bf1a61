import { loadModule } from '../shared/load-module.js';
import { baseOf, registration } from '../registration.js';
import { registryDefault } from '../registries.js';
import { claimNuget } from './detect.js';

/** NuGet ids: compared case-insensitively, lower-cased as the flat container keys them. */
const NUGET_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

/** Its package source's module, loaded when the service starts (see ecosystems/sources.ts). */
const sourceModule = () => loadModule(import.meta.url, './source.js', () => import('./source.js'));

export const nuget = registration({
  id: 'nuget',
  label: '.NET',
  purlType: 'nuget',
  registries: [registryDefault('nuget')],
  detect: { files: ['packages.lock.json', 'packages.config', '*.deps.json', '*.csproj', '*.fsproj', '*.vbproj', 'Directory.Packages.props', 'Directory.Build.props'], claim: claimNuget },
  analysis: {
    loaded: 'with-first-file',
    create: async (endpoint) => (await loadModule(import.meta.url, './analysis.js', () => import('./analysis.js'))).nugetEcosystem(endpoint),
  },
  packages: {
    prefixes: ['nuget'],
    name: (given) => (NUGET_ID.test(given) ? given.toLowerCase() : null),
    spec: 'one-clause',
    load: sourceModule,
    source: async ({ registries, http }) => new (await sourceModule()).NugetPackageSource(baseOf(registries, 'nuget'), http),
    inspect: async (context) => (await loadModule(import.meta.url, './inspect.js', () => import('./inspect.js'))).inspector(context),
  },
});
