import { changelogCoverage, changelogFormat, entriesBetween, findChangelog, parseChangelog, type VersionOrder } from './changelog/index.js';
import type { ChangelogFindings, ChangelogReader, PackageFiles, VersionCompare } from './changelog-seam.js';

/**
 * What marks an entry as breaking: the word BREAKING as changelogs write it (`BREAKING CHANGE:`,
 * `**BREAKING**`, `### ⚠ BREAKING CHANGES`), or a sub-heading naming breaking changes. A lower-case
 * "breaking" in prose ("non-breaking", "fixes a breaking bug") is not taken.
 */
function isBreaking(text: string, heading: string): boolean {
  return /\bBREAKING\b/u.test(`${heading}\n${text}`) || /^#{1,6}[^\n]*\bbreaking changes?\b/imu.test(text);
}

/** The seam's comparator as the changelog module's: a version the ecosystem cannot read throws (the module leaves that entry out). */
function orderOf(compare: VersionCompare): VersionOrder {
  return (a, b) => {
    const c = compare(a, b);
    if (c === null) throw new Error(`not comparable: ${a} and ${b}`);
    return c;
  };
}

/**
 * Reads the package's own changelog file (src/packages/changelog/) from the newer version's files:
 * the entries after `from` up to `to`, and the published versions in between that have none.
 */
export const FILE_CHANGELOG_READER: ChangelogReader = {
  async entriesBetween(files: PackageFiles, from: string | null, to: string, compare: VersionCompare, versions: readonly string[]): Promise<ChangelogFindings> {
    const order = orderOf(compare);
    const file = findChangelog((await files.paths()).map((p) => p.path));
    const text = file === null ? null : await files.text(file);
    if (file === null || text === null) {
      const { versions: between } = changelogCoverage([], versions, from, to, order);
      const reason =
        file === null
          ? `${files.target} ships no CHANGELOG, CHANGES, HISTORY, NEWS or RELEASES file.`
          : `${file} of ${files.target} is binary or larger than a read answers.`;
      return { file, entries: [], coverage: { state: 'none', reason, versions_without_entry: [...between] } };
    }
    const parsed = parseChangelog(text, changelogFormat(file));
    const entries = entriesBetween(parsed, from, to, order);
    const coverage = changelogCoverage(parsed, versions, from, to, order);
    const state = coverage.missing.length === 0 ? 'complete' : entries.length === 0 ? 'none' : 'partial';
    return {
      file,
      entries: entries.map((e) => ({ version: e.version, date: e.date, text: e.text, breaking: isBreaking(e.text, e.heading) })),
      coverage: {
        state,
        reason: state === 'complete' ? null : `${coverage.missing.length} of the ${coverage.versions.length} published versions in the range have no entry in ${file}.`,
        versions_without_entry: [...coverage.missing],
      },
    };
  },
};
