import type { Readable } from 'node:stream';
import type { PackageVersion, VersionLookup } from './npm.js';

/** The registries whose packages are inventory targets. */
export const PACKAGE_REGISTRIES = ['npm', 'crates', 'pypi'] as const;
export type PackageRegistry = (typeof PACKAGE_REGISTRIES)[number];

/**
 * One registry as an inventory source: version resolution (exact, range or latest) to one
 * archive URL, the identity facts the registry records, and the archive as a stream. The npm
 * source is one; every other registry is another behind the same preparation flow.
 */
export interface PackageRegistrySource {
  lookup(name: string, spec: string | null): Promise<VersionLookup>;
  /** The repository URL (and commit) the registry records for a version; nulls when unknown. */
  provenance(name: string, version: string): Promise<{ repoUrl: string | null; gitHead: string | null }>;
  /** The archive (gzip tar with one top folder), streamed. */
  tarball(version: PackageVersion): Promise<Readable>;
}

export type PackageSources = Readonly<Record<'npm', PackageRegistrySource> & Partial<Record<PackageRegistry, PackageRegistrySource>>>;
