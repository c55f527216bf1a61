import { Type, type Static, type TSchema } from 'typebox';

/**
 * The wire shapes of package inspection (`GET /v1/packages/{target}`, its changelog, and
 * `POST /v1/packages/upgrade-review`): one schema per resource, from which the routes validate,
 * the OpenAPI document is generated and the service's answer types are derived.
 */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const PackageDependency = Type.Object({
  name: Type.String(),
  requirement: Nullable(Type.String({ description: 'As the manifest writes it; null when none is given.' })),
  kind: Type.String({ description: 'The ecosystem\'s own word: dependencies, devDependencies, peerDependencies, normal/dev/build (crates), requires_dist or extra:<name> (PyPI), require (Go, Composer), compile/test/… (Maven scope), runtime/development (RubyGems), a target framework (NuGet).' }),
  optional: Type.Boolean(),
});
export type PackageDependencyType = Static<typeof PackageDependency>;

export const PackageVulnerability = Type.Object({
  id: Type.String({ description: 'The OSV id.' }),
  aliases: Type.Array(Type.String()),
  summary: Nullable(Type.String()),
  severity: Type.String({ description: 'critical, high, medium, low, info, none or unknown (the worst of its ratings).' }),
  score: Nullable(Type.Number()),
  fixed_versions: Type.Array(Type.String(), { description: 'The nearest fixed versions above this one; empty when no fix is published.' }),
  url: Type.String(),
});
export type PackageVulnerabilityType = Static<typeof PackageVulnerability>;

export const AdvisorySource = Type.Object({
  ecosystem: Type.String(),
  advisories: Type.Integer({ minimum: 0 }),
  modified_max: Nullable(Type.String()),
  synced_at: Nullable(Type.String()),
});

export const PackageRelease = Type.Object({
  version: Type.String(),
  published_at: Nullable(Type.String()),
  latest_version: Nullable(Type.String()),
  latest_published_at: Nullable(Type.String()),
  versions_count: Type.Integer({ minimum: 0 }),
  deprecated: Type.Boolean(),
  deprecated_reason: Nullable(Type.String()),
  yanked: Type.Boolean({ description: 'Not offered for new installs: yanked, unlisted (NuGet) or retired (Hex); `yanked_as` names which.' }),
  yanked_as: Nullable(Type.String()),
  yanked_reason: Nullable(Type.String()),
  retracted: Type.Boolean({ description: 'Retracted by the package itself (Go `retract`, pub).' }),
  retracted_reason: Nullable(Type.String()),
  license: Nullable(Type.String({ description: 'SPDX expression as the registry states it.' })),
  description: Nullable(Type.String()),
  homepage: Nullable(Type.String()),
  repository_url: Nullable(Type.String()),
  supplier: Nullable(Type.String()),
  install_scripts: Nullable(Type.Record(Type.String(), Type.String(), { description: 'Scripts the package manager runs at install (npm preinstall/install/postinstall); null where the ecosystem has none.' })),
  exports: Nullable(Type.Array(Type.String(), { description: 'Entry points the manifest declares (npm `exports` keys).' })),
});
export type PackageReleaseType = Static<typeof PackageRelease>;

export const PackageVersionEntry = Type.Object({
  version: Type.String(),
  published_at: Nullable(Type.String()),
  yanked: Type.Boolean(),
  deprecated: Type.Boolean(),
});

export const PackageResponse = Type.Object({
  requested_target: Type.String(),
  canonical_target: Type.String({ description: 'The resolved version: `<registry>:<name>@<version>`.' }),
  registry: Type.String(),
  package_name: Type.String(),
  requested_version: Nullable(Type.String()),
  release: Type.Optional(PackageRelease),
  dependencies: Type.Optional(Type.Array(PackageDependency)),
  dependencies_truncated: Type.Optional(Type.Boolean()),
  vulnerabilities: Type.Optional(Type.Array(PackageVulnerability)),
  vulnerabilities_note: Type.Optional(Nullable(Type.String({ description: 'Why the list may be incomplete (advisories off or not loaded for this ecosystem); null when matched.' }))),
  advisories: Type.Optional(Nullable(AdvisorySource)),
  versions: Type.Optional(Type.Array(PackageVersionEntry, { description: 'Newest first.' })),
  versions_truncated: Type.Optional(Type.Boolean()),
  fetched_at: Type.String({ description: 'When the registry answer used was fetched (answers are cached with their freshness).' }),
});
export type PackageResponseType = Static<typeof PackageResponse>;

/** The members `fields` may name; identity members are always answered. */
export const PACKAGE_FIELDS = ['release', 'dependencies', 'vulnerabilities', 'versions'] as const;
export type PackageField = (typeof PACKAGE_FIELDS)[number];

export const PackageParams = Type.Object({ target: Type.String({ minLength: 1, description: 'A package target, percent-encoded as one segment: `npm%3Aexpress%404.17.1` (no version: the latest).' }) });

export const PackageQuery = Type.Object(
  {
    fields: Type.Optional(Type.String({ description: `Comma-separated members to answer (${PACKAGE_FIELDS.join(', ')}); default all. Identity is always answered.` })),
    versions_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Recent versions listed (newest first).' })),
  },
  { additionalProperties: false },
);

export const ChangelogQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ minLength: 1, description: 'The older version (exclusive); default: the one before the target\'s.' })),
    to: Type.Optional(Type.String({ minLength: 1, description: 'The newer version (inclusive); default: the target\'s.' })),
    wait_timeout_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 210_000, default: 0, description: 'Wait this long for the newer version\'s files to be prepared.' })),
  },
  { additionalProperties: false },
);

export const ChangelogEntry = Type.Object({
  version: Type.String(),
  date: Nullable(Type.String()),
  text: Type.String({ description: 'Markdown, as the file writes it.' }),
  breaking: Type.Boolean({ description: 'The entry says BREAKING.' }),
});
export type ChangelogEntryType = Static<typeof ChangelogEntry>;

export const ChangelogCoverage = Type.Object({
  state: Type.Enum(['complete', 'partial', 'none', 'not_available']),
  reason: Nullable(Type.String()),
  versions_without_entry: Type.Array(Type.String()),
});

export const ChangelogResponse = Type.Object({
  requested_target: Type.String(),
  canonical_target: Type.String(),
  from: Nullable(Type.String()),
  to: Type.String(),
  file: Nullable(Type.Object({ path: Type.String(), read: Type.Object({ target: Type.String(), path: Type.String() }) })),
  entries: Type.Array(ChangelogEntry),
  coverage: ChangelogCoverage,
});
export type ChangelogResponseType = Static<typeof ChangelogResponse>;

export const UpgradeReviewBody = Type.Object(
  {
    target: Type.String({ minLength: 1, description: 'The installed version: `npm:express@4.17.1`.' }),
    to: Type.String({ minLength: 1, description: 'The version to upgrade to: `4.21.2`.' }),
    wait_timeout_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 210_000, default: 0, description: 'Wait this long for both versions\' files to be prepared (file changes and sizes need them).' })),
  },
  { additionalProperties: false },
);
export type UpgradeReviewBodyType = Static<typeof UpgradeReviewBody>;

const Side = Type.Object({ canonical_target: Type.String(), version: Type.String(), published_at: Nullable(Type.String()), license: Nullable(Type.String()) });

const FileTotals = Type.Object({ count: Type.Integer({ minimum: 0 }), bytes: Type.Integer({ minimum: 0 }) });

export const UpgradeReviewResponse = Type.Object({
  requested_target: Type.String(),
  from: Side,
  to: Side,
  breaking: Type.Array(
    Type.Object({ kind: Type.Enum(['major_bump', 'changelog', 'removed_export']), detail: Type.String() }),
    { description: 'Hints that the upgrade breaks callers.' },
  ),
  vulnerabilities: Type.Object({ fixed: Type.Array(PackageVulnerability), introduced: Type.Array(PackageVulnerability), remaining: Type.Array(PackageVulnerability), note: Nullable(Type.String()) }),
  dependencies: Type.Object({
    added: Type.Array(PackageDependency),
    removed: Type.Array(PackageDependency),
    changed: Type.Array(Type.Object({ name: Type.String(), kind: Type.String(), from: Nullable(Type.String()), to: Nullable(Type.String()) })),
  }),
  license: Type.Object({ from: Nullable(Type.String()), to: Nullable(Type.String()), changed: Type.Boolean() }),
  install_scripts: Nullable(
    Type.Object({
      added: Type.Record(Type.String(), Type.String()),
      removed: Type.Record(Type.String(), Type.String()),
      changed: Type.Record(Type.String(), Type.Object({ from: Type.String(), to: Type.String() })),
    }),
  ),
  files: Nullable(
    Type.Object({
      added: FileTotals,
      removed: FileTotals,
      changed: Type.Object({ count: Type.Integer({ minimum: 0 }), bytes_before: Type.Integer({ minimum: 0 }), bytes_after: Type.Integer({ minimum: 0 }) }),
      unchanged: Type.Integer({ minimum: 0 }),
      compare: Type.Object({ base: Type.String(), head: Type.String() }, { description: 'The body of POST /v1/experimental/compare that pages through every change.' }),
    }),
  ),
  files_note: Nullable(Type.String({ description: 'Why files and sizes are null (a version is still being prepared, or its archive is unavailable).' })),
  size: Nullable(Type.Object({ before: FileTotals, after: FileTotals }, { description: 'The unpacked archive of each version: its files and their bytes.' })),
  changelog: Type.Object({ entries: Type.Array(ChangelogEntry), coverage: ChangelogCoverage }),
});
export type UpgradeReviewResponseType = Static<typeof UpgradeReviewResponse>;
