import { loadModule } from '../shared/load-module.js';
import { baseOf, registration } from '../registration.js';
import { registryDefault } from '../registries.js';
import { claimJvmFile } from './detect.js';

/** Maven coordinates `<groupId>:<artifactId>`. */
const MAVEN_COORDINATES = /^[A-Za-z0-9_.-]{1,200}:[A-Za-z0-9_.-]{1,200}$/;

/** Its package source's module, loaded when the service starts (see ecosystems/sources.ts). */
const sourceModule = () => loadModule(import.meta.url, './source.js', () => import('./source.js'));

export const maven = registration({
  id: 'maven',
  label: 'Maven',
  purlType: 'maven',
  registries: [registryDefault('maven')],
  detect: { files: ['pom.xml', 'gradle.lockfile', 'settings-gradle.lockfile', 'gradle/verification-metadata.xml', 'gradle/*.versions.toml', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts'], claim: claimJvmFile },
  analysis: {
    loaded: 'with-first-file',
    create: async (endpoint, options) => (await loadModule(import.meta.url, './analysis.js', () => import('./analysis.js'))).mavenEcosystem(endpoint, { resolutionTimeoutMs: options.resolutionTimeoutMs, allowedRepositories: options.mavenAllowedRepositories ?? [] }),
  },
  packages: {
    prefixes: ['maven'],
    name: (given) => (MAVEN_COORDINATES.test(given) ? given : null),
    spec: 'one-clause',
    load: sourceModule,
    source: async ({ registries, http }) => new (await sourceModule()).MavenPackageSource(baseOf(registries, 'maven'), http),
    inspect: async (context) => (await loadModule(import.meta.url, './inspect.js', () => import('./inspect.js'))).inspector(context),
  },
});
