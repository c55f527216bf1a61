/**
 * The wire shapes of package inspection as the console reads them (`GET /v1/packages/{target}`,
 * its changelog, `POST /v1/packages/upgrade-review`), stated here rather than imported from the
 * server's schemas, as for the other views.
 */

export interface PackageDependency {
  readonly name: string;
  readonly requirement: string | null;
  readonly kind: string;
  readonly optional: boolean;
}

export interface PackageVulnerability {
  readonly id: string;
  readonly aliases: readonly string[];
  readonly summary: string | null;
  readonly severity: string;
  readonly score: number | null;
  readonly fixed_versions: readonly string[];
  readonly url: string;
}

export interface PackageRelease {
  readonly version: string;
  readonly published_at: string | null;
  readonly latest_version: string | null;
  readonly latest_published_at: string | null;
  readonly versions_count: number;
  readonly deprecated: boolean;
  readonly deprecated_reason: string | null;
  readonly yanked: boolean;
  readonly yanked_as: string | null;
  readonly yanked_reason: string | null;
  readonly retracted: boolean;
  readonly retracted_reason: string | null;
  readonly license: string | null;
  readonly description: string | null;
  readonly homepage: string | null;
  readonly repository_url: string | null;
  readonly supplier: string | null;
  readonly install_scripts: Readonly<Record<string, string>> | null;
  readonly exports: readonly string[] | null;
}

export interface PackageVersionEntry {
  readonly version: string;
  readonly published_at: string | null;
  readonly yanked: boolean;
  readonly deprecated: boolean;
}

export interface PackageResponse {
  readonly requested_target: string;
  readonly canonical_target: string;
  readonly registry: string;
  readonly package_name: string;
  readonly requested_version: string | null;
  readonly release?: PackageRelease;
  readonly dependencies?: readonly PackageDependency[];
  readonly dependencies_truncated?: boolean;
  readonly vulnerabilities?: readonly PackageVulnerability[];
  readonly vulnerabilities_note?: string | null;
  readonly versions?: readonly PackageVersionEntry[];
  readonly versions_truncated?: boolean;
  readonly fetched_at: string;
}

export interface ChangelogEntry {
  readonly version: string;
  readonly date: string | null;
  readonly text: string;
  readonly breaking: boolean;
}

export interface ChangelogCoverage {
  readonly state: 'complete' | 'partial' | 'none' | 'not_available';
  readonly reason: string | null;
  readonly versions_without_entry: readonly string[];
}

export interface ChangelogResponse {
  readonly requested_target: string;
  readonly canonical_target: string;
  readonly from: string | null;
  readonly to: string;
  readonly file: { readonly path: string; readonly read: { readonly target: string; readonly path: string } } | null;
  readonly entries: readonly ChangelogEntry[];
  readonly coverage: ChangelogCoverage;
}

export interface ReviewSide {
  readonly canonical_target: string;
  readonly version: string;
  readonly published_at: string | null;
  readonly license: string | null;
}

export interface FileTotals {
  readonly count: number;
  readonly bytes: number;
}

export interface UpgradeReviewResponse {
  readonly requested_target: string;
  readonly from: ReviewSide;
  readonly to: ReviewSide;
  readonly breaking: readonly { readonly kind: 'major_bump' | 'changelog' | 'removed_export'; readonly detail: string }[];
  readonly vulnerabilities: {
    readonly fixed: readonly PackageVulnerability[];
    readonly introduced: readonly PackageVulnerability[];
    readonly remaining: readonly PackageVulnerability[];
    readonly note: string | null;
  };
  readonly dependencies: {
    readonly added: readonly PackageDependency[];
    readonly removed: readonly PackageDependency[];
    readonly changed: readonly { readonly name: string; readonly kind: string; readonly from: string | null; readonly to: string | null }[];
  };
  readonly license: { readonly from: string | null; readonly to: string | null; readonly changed: boolean };
  readonly install_scripts: {
    readonly added: Readonly<Record<string, string>>;
    readonly removed: Readonly<Record<string, string>>;
    readonly changed: Readonly<Record<string, { readonly from: string; readonly to: string }>>;
  } | null;
  readonly files: {
    readonly added: FileTotals;
    readonly removed: FileTotals;
    readonly changed: { readonly count: number; readonly bytes_before: number; readonly bytes_after: number };
    readonly unchanged: number;
    readonly compare: { readonly base: string; readonly head: string };
  } | null;
  readonly files_note: string | null;
  readonly size: { readonly before: FileTotals; readonly after: FileTotals } | null;
  readonly changelog: { readonly entries: readonly ChangelogEntry[]; readonly coverage: ChangelogCoverage };
}

/** `GET /v1/packages/{target}`: the target is one percent-encoded path segment. */
export function packageUrl(target: string): string {
  return `/v1/packages/${encodeURIComponent(target)}`;
}

export function changelogUrl(target: string, from: string | null, to: string | null): string {
  const query = new URLSearchParams();
  if (from !== null) query.set('from', from);
  if (to !== null) query.set('to', to);
  const text = query.toString();
  return `${packageUrl(target)}/changelog${text === '' ? '' : `?${text}`}`;
}
