/**
 * The changelog reader: find a package's changelog among its files, read it into release entries,
 * pick the entries between two versions and say which versions have none. Pure: no I/O.
 */
export { CHANGELOG_LIMITS, type ChangelogEntry, type ChangelogFormat, type VersionOrder } from './types.js';
export { findChangelog, changelogFormat } from './find.js';
export { parseChangelog } from './parse.js';
export { entriesBetween, changelogCoverage, normalizeVersion, type ChangelogCoverage } from './between.js';
