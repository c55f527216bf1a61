/**
 * The inventory every parser produces and every renderer reads. One Occurrence per lockfile
 * entry: two entries with the same name and version stay two occurrences (different install
 * paths, different dependents), never merged.
 */

export type OccurrenceSource = 'registry' | 'tarball' | 'git' | 'file' | 'link' | 'workspace' | 'root';

/**
 * How a dependency was declared: it decides whether what it pulls in is dev or optional.
 * `peerOptional` (an optional peer) resolves to a package but never causes its installation.
 */
export type EdgeKind = 'prod' | 'dev' | 'optional' | 'peer' | 'peerOptional';

export interface Edge {
  readonly ref: string;
  readonly kind: EdgeKind;
  /** The declared range, when known, to check the lockfile against. */
  readonly range?: string;
}

export interface Occurrence {
  /** Unique within one analysis; used as the CycloneDX bom-ref and the SPDX id seed. */
  readonly ref: string;
  /** The ecosystem that built it: its purl type (`npm`, `pypi`, `cargo`, `golang`, …). */
  readonly ecosystem: string;
  /** The real package name (an alias is installed under another name; see `alias`). */
  readonly name: string;
  readonly version: string | null;
  /** The name the package is installed and required under, when it differs from `name`. */
  alias: string | null;
  /** Where the lockfile places it (e.g. `node_modules/a/node_modules/b`), or the lockfile's own key. */
  readonly installPath: string;
  /** Path of the lockfile (or manifest, when resolved) that recorded it. */
  readonly lockfile: string;
  readonly source: OccurrenceSource;
  readonly resolved: string | null;
  /** Subresource-integrity string as recorded (possibly several space-separated hashes). */
  readonly integrity: string | null;
  /** Only development dependencies lead to it (it does not ship). */
  dev: boolean;
  /** Only optional dependencies lead to it (it may be absent). */
  optional: boolean;
  /**
   * Whether the files say if it ships: false where a lockfile records no scope and no manifest
   * tells (a Cargo.lock or go.mod alone), so the documents state no scope rather than guess one.
   */
  scopeKnown: boolean;
  readonly peer: boolean;
  /** License as the lockfile records it (package-lock v2+), before normalisation. */
  readonly license: string | null;
  /** The occurrences this one's declared dependencies resolve to. */
  dependencies: Edge[];
  /** Extra facts (cpu/os restrictions, bundled, deprecation) carried into properties. */
  readonly facts: Readonly<Record<string, string>>;
}

/** A requirement that did not become a component (no lockfile and no successful resolution). */
export interface Declaration {
  readonly manifest: string;
  readonly name: string;
  /** The requirement as declared (a range, a specifier, a URL); empty when none was given. */
  readonly range: string;
  /**
   * Where it was declared, in the ecosystem's own words: npm's `dependencies`, `devDependencies`…;
   * Python's `dependencies`, `optional:<extra>`, `group:<name>`; Cargo's `dev-dependencies`…
   */
  readonly kind: string;
  /** The ecosystem (purl type); absent means npm, for documents written before there were others. */
  readonly ecosystem?: string;
  /**
   * The platform or SDK provides it (`php`, `ext-json`, the Flutter SDK's `flutter`): never a
   * package to install, so it does not make the inventory partial.
   */
  readonly provided?: true;
}

export interface LockfileRecord {
  readonly path: string;
  readonly kind: string;
  readonly version: string | null;
  readonly entries: number;
}

export interface ManifestAssociation {
  readonly manifest: string;
  /** The lockfile covering it, or null when it was resolved against the registry (or not at all). */
  readonly lockfile: string | null;
  readonly role: 'root' | 'workspace' | 'standalone';
}

export type ResolutionOutcome = 'lockfile' | 'resolved' | 'resolution_failed' | 'resolution_timeout' | 'unparsable';

export interface ManifestResolution {
  readonly manifest: string;
  readonly outcome: ResolutionOutcome;
  readonly detail: string | null;
}

export interface Inventory {
  readonly occurrences: Occurrence[];
  /** Refs of the project roots (root manifests and workspace members). */
  readonly roots: string[];
  readonly declarations: Declaration[];
  readonly lockfiles: LockfileRecord[];
  readonly associations: ManifestAssociation[];
  readonly resolutions: ManifestResolution[];
  readonly notices: string[];
}

export function emptyInventory(): Inventory {
  return { occurrences: [], roots: [], declarations: [], lockfiles: [], associations: [], resolutions: [], notices: [] };
}
