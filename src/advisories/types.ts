/**
 * The advisory vocabulary shared by the mirror (store, sync, import), the matcher and the
 * renderers. Advisories are OSV documents (https://ossf.github.io/osv-schema/); only the fields
 * pkgscope reads are typed, the rest are kept as they came.
 */

/** One `severity[]` entry: a CVSS vector (`CVSS_V2`, `CVSS_V3`, `CVSS_V4`) or an ecosystem's own scale (`Ubuntu`). */
export interface OsvSeverity {
  readonly type: string;
  readonly score: string;
}

/** One range event; exactly one of the fields is set. */
export interface OsvEvent {
  readonly introduced?: string;
  readonly fixed?: string;
  readonly last_affected?: string;
  readonly limit?: string;
}

export interface OsvRange {
  readonly type: 'SEMVER' | 'ECOSYSTEM' | 'GIT';
  readonly repo?: string;
  readonly events: readonly OsvEvent[];
}

export interface OsvAffected {
  readonly package?: { readonly ecosystem: string; readonly name: string; readonly purl?: string };
  readonly ranges?: readonly OsvRange[];
  readonly versions?: readonly string[];
  readonly severity?: readonly OsvSeverity[];
  readonly ecosystem_specific?: Readonly<Record<string, unknown>>;
  readonly database_specific?: Readonly<Record<string, unknown>>;
}

export interface OsvReference {
  readonly type: string;
  readonly url: string;
}

/** An OSV advisory document, validated against the OSV schema at import. */
export interface OsvAdvisory {
  readonly schema_version?: string;
  readonly id: string;
  readonly modified: string;
  readonly published?: string;
  readonly withdrawn?: string;
  readonly aliases?: readonly string[];
  readonly related?: readonly string[];
  readonly upstream?: readonly string[];
  readonly summary?: string;
  readonly details?: string;
  readonly severity?: readonly OsvSeverity[];
  readonly affected?: readonly OsvAffected[];
  readonly references?: readonly OsvReference[];
  /** GHSA puts `cwe_ids` and a `severity` label here. */
  readonly database_specific?: Readonly<Record<string, unknown>>;
}

/** What one ecosystem's loaded advisory set is: the evidence a document states. */
export interface AdvisorySnapshot {
  /** The OSV ecosystem name (`PyPI`, `crates.io`, `Go`, …). */
  readonly ecosystem: string;
  readonly advisories: number;
  /** The newest `modified` among them (ISO 8601), null when the set is empty. */
  readonly modifiedMax: string | null;
  /** When the set was last synced or imported (ISO 8601), null when never. */
  readonly syncedAt: string | null;
}

/**
 * Where an analysis finds advisories: the Postgres mirror (the service) or OSV zips and folders
 * read into memory (the CLI's `--advisories PATH`). Names are matched after `normalizeName` of
 * ./ecosystems.ts, by both sides.
 */
export interface AdvisoryLookup {
  /** Every advisory (withdrawn ones included; the matcher skips them) naming one of `names` in OSV `ecosystem`. */
  byPackages(ecosystem: string, names: readonly string[]): Promise<readonly OsvAdvisory[]>;
  /** The loaded sets, one per ecosystem with advisories (for the evidence). */
  snapshots(): Promise<readonly AdvisorySnapshot[]>;
}

/** One component occurrence an advisory affects. */
export interface AffectedOccurrence {
  /** The occurrence's `ref` (its CycloneDX bom-ref). */
  readonly ref: string;
  readonly version: string;
  /** The nearest fixed versions above `version` (empty when no fix is published). */
  readonly fixedVersions: readonly string[];
}

/** An advisory matched to an inventory: what the renderers write. */
export interface VulnerabilityMatch {
  readonly advisory: OsvAdvisory;
  /** The OSV ecosystem it was matched in. */
  readonly ecosystem: string;
  /** Aliases of the advisory and of the advisories folded into it (deduplicated, sorted). */
  readonly aliases: readonly string[];
  readonly affects: readonly AffectedOccurrence[];
}

/** What the analysis attaches to its inventory when `vulnerabilities` was asked for. */
export interface VulnerabilityReport {
  readonly matches: readonly VulnerabilityMatch[];
  readonly snapshots: readonly AdvisorySnapshot[];
}
