import type { ChangelogEntryType, ChangelogResponseType } from './schemas.js';

/**
 * The seam between package inspection and the changelog reader (src/packages/changelog/): the
 * changelog route and the upgrade review hand a reader the files of the newer version and the
 * two versions, and show what it finds (changelog-reader.ts reads the package's own file).
 */

/** One version's files, as the reader sees them: its paths, and the text of one of them. */
export interface PackageFiles {
  /** The served target every read action names (`npm:express@4.21.2`). */
  readonly target: string;
  paths(): Promise<readonly { readonly path: string; readonly byteSize: number | null }[]>;
  /** The file's text (UTF-8), null when it is not in the version, is binary or is over the read bound. */
  text(path: string): Promise<string | null>;
}

/** What a reader found between two versions. */
export interface ChangelogFindings {
  /** The file the entries were read from (its path in the version), null when none was found. */
  readonly file: string | null;
  /** Newest first. */
  readonly entries: readonly ChangelogEntryType[];
  readonly coverage: ChangelogResponseType['coverage'];
}

/** The order of two versions in the package's ecosystem (negative, 0, positive), null when either is not a version of it. */
export type VersionCompare = (a: string, b: string) => number | null;

export interface ChangelogReader {
  /**
   * The entries after `from` (exclusive; null: only `to`'s own) up to `to` (inclusive) in the
   * package's own changelog file, and which of the package's published `versions` in that range
   * have none; null when this reader cannot tell (no reader installed).
   */
  entriesBetween(files: PackageFiles, from: string | null, to: string, compare: VersionCompare, versions: readonly string[]): Promise<ChangelogFindings | null>;
}

/** The coverage of a reader that could not tell. */
export const CHANGELOG_NOT_AVAILABLE: ChangelogFindings = {
  file: null,
  entries: [],
  coverage: { state: 'not_available', reason: 'The changelog could not be read.', versions_without_entry: [] },
};
