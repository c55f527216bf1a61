import semver from 'semver';
import type { TarFile, TarLimits, TarReadResult } from '../../archives/tar-reader.js';
import { archiveBytes, quietly, readArchive, sourceJson, type SourceHttp } from '../shared/archive.js';
import { PubRegistry } from './registry.js';
import type { PackageVersion, VersionLookup } from '../shared/package-source.js';
import { NO_PROVENANCE, type PackageRegistrySource, type Provenance } from '../shared/package-source.js';

/**
 * pub.dev (the hosted pub repository API, v2) as an inventory source: `GET /api/packages/<name>`
 * lists every version with its `archive_url` (a gzip tar of the package's own tree, no top
 * folder), its `pubspec` (whose `repository`, else `homepage`, is the provenance) and whether it
 * is `retracted`.
 *
 * Versions are pub constraints (`1.2.2`, `^1.2.0`, `>=1.0.0 <2.0.0`, `any`), which node-semver
 * reads as they are; retracted versions are skipped unless pinned, pre-releases unless named.
 */

interface PubVersion {
  readonly version: string;
  readonly archive: string | null;
  readonly retracted: boolean;
  readonly pubspec: Record<string, unknown>;
}

export class PubPackageSource implements PackageRegistrySource {
  private readonly registry: PubRegistry;

  constructor(
    base: string,
    private readonly http: SourceHttp,
  ) {
    this.registry = new PubRegistry(base, http);
  }

  private async versions(name: string): Promise<PubVersion[] | null> {
    const doc = await sourceJson<{ versions?: unknown }>(() => this.registry.package(name), (d) => Array.isArray(d.versions));
    if (doc === null) return null;
    return (doc.versions as unknown[]).flatMap((v) => {
      const r = v as { version?: unknown; archive_url?: unknown; retracted?: unknown; pubspec?: unknown } | null;
      if (typeof r?.version !== 'string' || semver.valid(r.version) === null) return [];
      const pubspec = typeof r.pubspec === 'object' && r.pubspec !== null ? (r.pubspec as Record<string, unknown>) : {};
      return [{ version: r.version, archive: typeof r.archive_url === 'string' ? r.archive_url : null, retracted: r.retracted === true, pubspec }];
    });
  }

  async lookup(name: string, spec: string | null): Promise<VersionLookup> {
    const versions = await this.versions(name);
    if (versions === null) return { kind: 'no_package' };
    let chosen: PubVersion | undefined;
    if (spec !== null && semver.valid(spec) === spec) chosen = versions.find((v) => v.version === spec);
    else {
      const range = spec === null || spec === 'latest' || spec === 'any' ? '*' : spec;
      if (semver.validRange(range) === null) return { kind: 'no_version' };
      const best = semver.maxSatisfying(
        versions.filter((v) => !v.retracted).map((v) => v.version),
        range,
      );
      chosen = versions.find((v) => v.version === best);
    }
    if (chosen === undefined) return { kind: 'no_version' };
    return { kind: 'found', version: { name, version: chosen.version, tarball: chosen.archive, integrity: null, unpackedSize: null, fileCount: null } };
  }

  provenance(name: string, version: string): Promise<Provenance> {
    return quietly(NO_PROVENANCE, async () => {
      const pubspec = (await this.versions(name))?.find((v) => v.version === version)?.pubspec;
      const url = [pubspec?.['repository'], pubspec?.['homepage']].find((u): u is string => typeof u === 'string' && /^https?:\/\//.test(u));
      return { repoUrl: url ?? null, gitHead: null };
    });
  }

  async read(version: PackageVersion, limits: TarLimits, onFile: (file: TarFile) => Promise<void>): Promise<TarReadResult> {
    return readArchive(await archiveBytes(this.http, version.tarball), limits, onFile, 'none');
  }
}
