import { loadModule } from '../shared/load-module.js';
import { baseOf, registration } from '../registration.js';
import { registryDefault } from '../registries.js';
import { claimPython } from './detect.js';
import { pep503 } from './names.js';

/** PEP 508 project names; identity is the PEP 503 normalized name. */
const PYPI_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,198}[A-Za-z0-9])?$/;

/** Its package source's module, loaded when the service starts (see ecosystems/sources.ts). */
const sourceModule = () => loadModule(import.meta.url, './source.js', () => import('./source.js'));

export const pypi = registration({
  id: 'pypi',
  label: 'Python',
  purlType: 'pypi',
  registries: [registryDefault('pypi')],
  detect: { files: ['poetry.lock', 'uv.lock', 'pdm.lock', 'Pipfile.lock', 'pylock.toml', 'pylock.*.toml', 'pyproject.toml', 'Pipfile', 'setup.cfg', 'requirements.txt', 'requirements-*.txt', '*-requirements.txt', 'requirements.in', 'constraints.txt'], claim: claimPython },
  analysis: {
    loaded: 'with-first-file',
    create: async (endpoint) => (await loadModule(import.meta.url, './analysis.js', () => import('./analysis.js'))).pypiEcosystem(endpoint),
  },
  packages: {
    prefixes: ['pypi'],
    name: (given) => (PYPI_NAME.test(given) ? pep503(given) : null),
    spec: 'one-clause',
    load: sourceModule,
    source: async ({ registries, http }) => new (await sourceModule()).PypiPackageSource(baseOf(registries, 'pypi'), http),
    inspect: async (context) => (await loadModule(import.meta.url, './inspect.js', () => import('./inspect.js'))).inspector(context),
  },
});
