import { licenseField, metadataFromManifest, repositoryUrl } from '../../model/metadata.js';
import type { SourceContext } from '../registration.js';
import { dependencyMap, isoDate, withdrawn, type DeclaredDependency, type InspectedPackage, type InspectedRelease, type PackageInspector } from '../shared/inspect.js';
import { record, text } from '../shared/narrow.js';
import { RegistryMalformed } from '../shared/source-errors.js';
import { NpmPackageSource } from './source.js';

/**
 * npm inspection from the full packument (one document: every version's manifest, `time`,
 * `dist-tags`), read through the npm package source's client with the user's npm configuration.
 * npm has no yanking: a version is deprecated (with its message) or unpublished (absent).
 */

/** The lifecycle scripts npm runs when it installs a package from the registry. */
export const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'] as const;

/** The entry points an `exports` field declares: its `.`-keys, `.` alone for a string or a conditions-only map. */
export function exportKeys(value: unknown): string[] | null {
  if (typeof value === 'string' || Array.isArray(value)) return ['.'];
  const map = record(value);
  if (map === null) return null;
  const keys = Object.keys(map);
  const subpaths = keys.filter((k) => k.startsWith('.'));
  return subpaths.length > 0 ? subpaths : keys.length > 0 ? ['.'] : null;
}

function dependenciesOf(manifest: Record<string, unknown>): DeclaredDependency[] {
  const peerMeta = record(manifest['peerDependenciesMeta']) ?? {};
  return [
    ...dependencyMap(manifest['dependencies'], 'dependencies'),
    ...dependencyMap(manifest['optionalDependencies'], 'optionalDependencies', () => true),
    ...dependencyMap(manifest['peerDependencies'], 'peerDependencies', (name) => record(peerMeta[name])?.['optional'] === true),
    ...dependencyMap(manifest['devDependencies'], 'devDependencies'),
  ];
}

class NpmInspector implements PackageInspector {
  constructor(private readonly source: NpmPackageSource) {}

  /**
   * The versions and times of the packuments `package` read last, for `release` (the inspection
   * caches both answers). Few: a full packument of a long-lived package runs to megabytes.
   */
  private readonly documents = new Map<string, Record<string, unknown>>();

  async package(name: string): Promise<InspectedPackage | null> {
    const doc = await this.source.fullPackument(name);
    if (doc === null) return null;
    const packument = record(doc);
    if (packument === null) throw new RegistryMalformed();
    const versions = record(packument['versions']);
    // An unpublished package keeps its document, without versions.
    if (versions === null) return null;
    const time = record(packument['time']) ?? {};
    // Kept for `release`, which reads the same document (the inspection caches both answers).
    this.documents.set(name, { versions, time });
    if (this.documents.size > 10) this.documents.delete(this.documents.keys().next().value ?? '');
    const listed = Object.keys(versions).map((version) => ({
      version,
      publishedAt: isoDate(time[version]),
      yanked: false,
      deprecated: text(record(versions[version])?.['deprecated']) !== null,
    }));
    // Publication order where the registry dates every version (keys keep insertion order otherwise).
    if (listed.every((v) => v.publishedAt !== null)) listed.sort((a, b) => (a.publishedAt ?? '').localeCompare(b.publishedAt ?? ''));
    return { name: text(packument['name']) ?? name, versions: listed, latest: text(record(packument['dist-tags'])?.['latest']) };
  }

  async release(name: string, version: string): Promise<InspectedRelease | null> {
    let packument = this.documents.get(name);
    if (packument === undefined) {
      if ((await this.package(name)) === null) return null;
      packument = this.documents.get(name);
    }
    const manifest = record(record(packument?.['versions'])?.[version]);
    if (packument === undefined || manifest === null) return null;
    const facts = metadataFromManifest(manifest);
    const scripts = record(manifest['scripts']) ?? {};
    const install = Object.fromEntries(INSTALL_SCRIPTS.flatMap((s) => (typeof scripts[s] === 'string' ? [[s, scripts[s]]] : [])));
    // npm runs `node-gyp rebuild` as the install script of a package with a binding.gyp and none of its own.
    if (install['install'] === undefined && install['preinstall'] === undefined && manifest['gypfile'] === true) install['install'] = 'node-gyp rebuild';
    return {
      version,
      publishedAt: isoDate(record(packument['time'])?.[version]),
      license: licenseField(manifest),
      description: facts.description,
      homepage: facts.homepage,
      repositoryUrl: repositoryUrl(manifest['repository']),
      supplier: facts.supplier?.party ?? null,
      deprecated: withdrawn(facts.deprecated !== null, 'deprecated', facts.deprecated),
      yanked: null,
      retracted: null,
      installScripts: install,
      dependencies: dependenciesOf(manifest),
      exports: exportKeys(manifest['exports']),
    };
  }
}

export function inspector(context: SourceContext): PackageInspector {
  return new NpmInspector(new NpmPackageSource(context.npm.options, { http: context.npm.http, outgoing: context.npm.outgoing }));
}
