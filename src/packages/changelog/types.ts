/** The changelog reader's vocabulary: an entry, the formats it reads, a version order, its limits. */
/** One release's section of a changelog file. */
export interface ChangelogEntry {
  /** The version as the heading writes it (`v1.2.3`, `1.0.0rc1`); matching normalises it. */
  readonly version: string;
  /** The release date as ISO `yyyy-mm-dd` when the heading (or a `Released …` line under it) gives one. */
  readonly date: string | null;
  /** The heading's text as written, without its Markdown or reStructuredText markers. */
  readonly heading: string;
  /** The section's body as Markdown, trimmed; non-version sub-headings stay inside it. */
  readonly text: string;
  /** The heading's 1-based line number in the file. */
  readonly line: number;
}

export type ChangelogFormat = 'markdown' | 'rst' | 'text';

/** An ecosystem's version order: negative, zero or positive like `Array.prototype.sort`; may throw on a version it cannot read. */
export type VersionOrder = (a: string, b: string) => number;

/** Bounds on the work a changelog may cause, whatever its size or shape. */
export const CHANGELOG_LIMITS = Object.freeze({
  /** Characters of a file read at all; the rest is ignored. */
  maxInputChars: 4 * 1024 * 1024,
  /** Lines of a file read at all (a long real changelog has a few thousand). */
  maxLines: 100_000,
  /** Entries kept; later (older) entries are dropped. */
  maxEntries: 2000,
  /** Characters of one entry's text kept, cut at a line boundary. */
  maxEntryTextChars: 64 * 1024,
  /** A line longer than this is never a heading (real headings are short). */
  maxHeadingChars: 200,
  /** Link reference definitions collected from the file. */
  maxLinkDefinitions: 5000,
});
