import type { TarFile, TarLimits, TarReadResult } from '../../archives/tar-reader.js';

/** One version of a package as a registry publishes it: where its archive is and what it declares. */
export interface PackageVersion {
  readonly name: string;
  readonly version: string;
  readonly tarball: string | null;
  readonly integrity: string | null;
  readonly unpackedSize: number | null;
  readonly fileCount: number | null;
}

export type VersionLookup =
  | { readonly kind: 'found'; readonly version: PackageVersion }
  | { readonly kind: 'no_package' }
  | { readonly kind: 'no_version' };

/** What a registry records about a version's origin: the repository and the commit it was built from. */
export interface Provenance {
  readonly repoUrl: string | null;
  readonly gitHead: string | null;
}

export const NO_PROVENANCE: Provenance = { repoUrl: null, gitHead: null };

/**
 * One registry as an inventory source: version resolution (exact, range or latest) to one
 * archive URL, the identity facts the registry records, and the archive's files. The npm source
 * is one; every other registry is another behind the same preparation flow.
 */
export interface PackageRegistrySource {
  lookup(name: string, spec: string | null): Promise<VersionLookup>;
  /** The repository URL (and commit) the registry records for a version; nulls when unknown. */
  provenance(name: string, version: string): Promise<Provenance>;
  /**
   * Downloads the version's archive and hands over its files as paths of the package's own tree
   * (the archive's top folder stripped), within `limits`.
   */
  read(version: PackageVersion, limits: TarLimits, onFile: (file: TarFile) => Promise<void>): Promise<TarReadResult>;
}

export type PackageSources = Readonly<Record<'npm', PackageRegistrySource> & Partial<Record<string, PackageRegistrySource>>>;
