import type { InspectedPackage, InspectedRelease } from '../ecosystems/shared/inspect.js';
import type { PackageReleaseType } from './schemas.js';

/** The `release` member of an inspection: the registry's facts of the version, with the package's latest beside them. */
export function releaseView(release: InspectedRelease, pkg: InspectedPackage, latestPublishedAt: string | null): PackageReleaseType {
  return {
    version: release.version,
    published_at: release.publishedAt,
    latest_version: pkg.latest,
    latest_published_at: latestPublishedAt,
    versions_count: pkg.versionsCount ?? pkg.versions.length,
    deprecated: release.deprecated !== null,
    deprecated_reason: release.deprecated?.reason ?? null,
    yanked: release.yanked !== null,
    yanked_as: release.yanked?.as ?? null,
    yanked_reason: release.yanked?.reason ?? null,
    retracted: release.retracted !== null,
    retracted_reason: release.retracted?.reason ?? null,
    license: release.license,
    description: release.description,
    homepage: release.homepage,
    repository_url: release.repositoryUrl,
    supplier: release.supplier,
    install_scripts: release.installScripts === null ? null : { ...release.installScripts },
    exports: release.exports === null ? null : [...release.exports],
  };
}
