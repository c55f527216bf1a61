import type { PackageMetadata } from '../../model/metadata.js';

/**
 * What package inspection reads of a registry, in one vocabulary for every ecosystem: each
 * folder's `inspect.ts` turns its registry's documents into these shapes (through the folder's own
 * registry client), and the inspection service (src/packages/) knows no ecosystem. Every text is
 * the registry's; null is unknown, never a guess.
 */

/** One published version as the package's version list shows it. */
export interface InspectedVersion {
  readonly version: string;
  /** ISO 8601, null when the registry's list does not date it. */
  readonly publishedAt: string | null;
  /** Not offered for new installs: yanked (crates, PyPI, RubyGems), retracted (Go, pub), unlisted (NuGet), retired (Hex). */
  readonly yanked: boolean;
  /** npm's per-version deprecation; false where the ecosystem has none. */
  readonly deprecated: boolean;
}

export interface InspectedPackage {
  /** The name as the registry writes it. */
  readonly name: string;
  /** Every version the registry lists, oldest first as far as the registry tells. */
  readonly versions: readonly InspectedVersion[];
  /** The registry's own "latest" (dist-tag, `max_stable_version`, `@latest`…), null when it names none. */
  readonly latest: string | null;
  /** How many versions the registry has, when `versions` holds only the newest of them (NuGet's older registration pages are not read). */
  readonly versionsCount?: number;
}

/** A declared dependency, as the release's manifest states it. */
export interface DeclaredDependency {
  readonly name: string;
  /** The requirement as written (`^4.17.1`, `>=1.0,<2`, `[1.0,2.0)`); null when none is given. */
  readonly requirement: string | null;
  /** The ecosystem's own word for its kind or scope (`dependencies`, `dev`, `build`, `compile`, `runtime`…). */
  readonly kind: string;
  readonly optional: boolean;
}

/** Why a version is set apart, in the registry's words. */
export interface Withdrawal {
  /** The registry's word for it: `yanked`, `unlisted`, `retired`, `retracted`, `deprecated`. */
  readonly as: string;
  /** The registry's reason text, null when it gives none. */
  readonly reason: string | null;
}

export interface InspectedRelease {
  readonly version: string;
  readonly publishedAt: string | null;
  /** SPDX expression as the registry states it. */
  readonly license: string | null;
  readonly description: string | null;
  readonly homepage: string | null;
  readonly repositoryUrl: string | null;
  readonly supplier: string | null;
  /** The version (or the whole package) is deprecated / abandoned / discontinued. */
  readonly deprecated: Withdrawal | null;
  /** The version is yanked, unlisted or retired. */
  readonly yanked: Withdrawal | null;
  /** The version is retracted by its own module or package (Go, pub). */
  readonly retracted: Withdrawal | null;
  /** Lifecycle scripts the package manager runs at install (npm); null where the ecosystem has none. */
  readonly installScripts: Readonly<Record<string, string>> | null;
  readonly dependencies: readonly DeclaredDependency[];
  /** Entry points the manifest declares (npm `exports` keys); null where none are declared. */
  readonly exports: readonly string[] | null;
}

/**
 * One registry's inspection: the package's versions, and one release's facts. Documents that are
 * missing answer null; a registry failure throws the folder's source errors (`RegistryUnavailable`,
 * `RegistryMalformed` of ./source-errors.ts), as its package source does.
 */
export interface PackageInspector {
  package(name: string): Promise<InspectedPackage | null>;
  /** The release's facts; `known` is the package as `package` read it (many registries give both in one document). */
  release(name: string, version: string, known: InspectedPackage): Promise<InspectedRelease | null>;
}

/** A release's facts from the registry metadata the analysis reads too (licence, texts, links, supplier). */
export function registryFacts(facts: PackageMetadata): Pick<InspectedRelease, 'license' | 'description' | 'homepage' | 'repositoryUrl' | 'supplier'> {
  return { license: facts.license, description: facts.description, homepage: facts.homepage, repositoryUrl: facts.repository, supplier: facts.supplier?.party ?? null };
}

/** A withdrawal when `flag` holds: the registry's word and its reason. */
export function withdrawn(flag: boolean, as: string, reason: string | null): Withdrawal | null {
  return flag ? { as, reason } : null;
}

/** A date the registry wrote, as ISO 8601 (null when it is none, or is a placeholder before 1971 such as NuGet's unlisted 1900-01-01). */
export function isoDate(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  const time = Date.parse(value);
  if (Number.isNaN(time) || time < Date.UTC(1971, 0, 1)) return null;
  return new Date(time).toISOString();
}

/** `{name: requirement}` maps (npm, Composer, pub) as dependencies of one kind. */
export function dependencyMap(value: unknown, kind: string, optional: (name: string) => boolean = () => false): DeclaredDependency[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).map(([name, requirement]) => ({
    name,
    requirement: typeof requirement === 'string' ? requirement : requirement === null || requirement === undefined ? null : JSON.stringify(requirement),
    kind,
    optional: optional(name),
  }));
}
