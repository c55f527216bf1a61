/**
 * A changelog file read into release entries. Headings are found by `scan.ts` (Markdown ATX and
 * setext, reStructuredText adornments, bare release lines in text files) and read by `heading.ts`
 * (`## [1.2.3] - 2020-01-01`, `## v1.2.3`, `# [2.0.0](compare-url) (2020-01-01)`,
 * `4.17.1 / 2019-05-25` over `===`, `Version 1.2.3`, `Towncrier 24.8.0rc1 (2024-08-19)`, …).
 *
 * A heading that names a release opens an entry, whatever its level (conventional-changelog writes
 * majors as `#` and the rest as `##`). A heading that names none closes the open entry when it is
 * above the entry's level (`## 2020` over `### 1.2.3`) or is an `Unreleased` or year heading at
 * its level;
 * otherwise it stays inside the entry's text (`### Added`, and standard-version's `### Bug Fixes`
 * under a patch release that is itself a `###`). Text before the first release and under `Unreleased` belongs to
 * no entry. Markdown link reference definitions (`[1.2.3]: https://…`, Keep a Changelog's footer)
 * are taken out of the entries and appended to each entry that uses their label, heading included,
 * so every entry's text is self-contained Markdown; `<a name="…"></a>` anchor lines and one-line
 * HTML comments are dropped. A heading without a date takes one from a
 * `Released …` line opening its body (the Pallets style).
 *
 * Bounded: one pass over at most `maxInputChars` characters in at most `maxLines` lines, at most
 * `maxEntries` entries of at most `maxEntryTextChars` characters of text each (cut at a line
 * boundary); see CHANGELOG_LIMITS. Patterns run on short lines or on one entry's bounded text.
 */
import { CHANGELOG_LIMITS, type ChangelogEntry, type ChangelogFormat } from './types.js';
import { parseVersionHeading, plainHeading, type VersionHeading } from './heading.js';
import { scanHeadings, type Heading } from './scan.js';
import { rstToMarkdown } from './rst.js';
import { findDate } from './dates.js';

interface OpenEntry {
  readonly version: string;
  readonly date: string | null;
  readonly heading: string;
  readonly rawHeading: string;
  readonly level: number;
  readonly line: number;
  readonly body: string[];
  bodyChars: number;
  full: boolean;
}

/** Lines that show nothing: conventional-changelog's `<a name="1.2.3"></a>` anchors, one-line HTML comments. */
const INVISIBLE = /^\s*(?:<a (?:name|id)="[^"<>]{0,200}">\s*<\/a>|<!--[^\n]{0,200}?-->)\s*$/;
const LINK_DEFINITION = /^ {0,3}\[([^\]\n]{1,200})\]:[ \t]*\S/;
const LABEL_USE = /\[([^\][\n]{1,200})\]/g;
const RELEASED_LINE = /^\s*[*_]{0,2}(?:released|release date|date)\b/i;
const MAX_DEFINITIONS_PER_ENTRY = 500;
/** Headings that end a release at the release's own level: the unreleased section, a year. */
const CLOSES_AT_LEVEL = /^(?:(?:unreleased|upcoming|next(?: release)?|in progress)\b|\d{4}$)/i;

function pushBody(entry: OpenEntry, line: string): void {
  if (entry.full) return;
  if (entry.bodyChars + line.length + 1 > CHANGELOG_LIMITS.maxEntryTextChars) {
    entry.full = true;
    return;
  }
  entry.body.push(line);
  entry.bodyChars += line.length + 1;
}

/** Removes the indentation every non-blank line shares (a text file's body indented under its heading). */
function dedent(lines: readonly string[]): string[] {
  let indent = Infinity;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const n = /^[ \t]*/.exec(line)?.[0].length ?? 0;
    if (n < indent) indent = n;
  }
  if (indent === Infinity || indent === 0) return [...lines];
  return lines.map((line) => line.slice(Math.min(indent, /^[ \t]*/.exec(line)?.[0].length ?? 0)));
}

function releasedDate(body: readonly string[]): string | null {
  const first = body.find((line) => line.trim() !== '');
  if (first === undefined || first.length > CHANGELOG_LIMITS.maxHeadingChars || !RELEASED_LINE.test(first)) return null;
  return findDate(first);
}

function withDefinitions(text: string, rawHeading: string, definitions: ReadonlyMap<string, string>): string {
  if (definitions.size === 0) return text;
  const used: string[] = [];
  const seen = new Set<string>();
  for (const source of [rawHeading, text]) {
    for (const m of source.matchAll(LABEL_USE)) {
      const label = (m[1] ?? '').toLowerCase();
      if (seen.has(label)) continue;
      seen.add(label);
      const definition = definitions.get(label);
      if (definition !== undefined) used.push(definition);
      if (used.length >= MAX_DEFINITIONS_PER_ENTRY) break;
    }
  }
  return used.length === 0 ? text : `${text}\n\n${used.join('\n')}`.trim();
}

/** The releases a changelog's text describes, in file order (usually newest first). */
export function parseChangelog(text: string, format: ChangelogFormat): ChangelogEntry[] {
  const lines = text.slice(0, CHANGELOG_LIMITS.maxInputChars).split(/\r\n|\r|\n/, CHANGELOG_LIMITS.maxLines);
  const headings: Heading[] = [];
  scanHeadings(lines, format, (h) => {
    headings.push(h);
    // Enough headings to fill every entry, with room for the sub-headings between them.
    return headings.length < CHANGELOG_LIMITS.maxEntries * 50;
  });

  const definitions = new Map<string, string>();
  const entries: OpenEntry[] = [];
  let open: OpenEntry | null = null;
  let next = 0;
  for (let i = 0; i < lines.length; i++) {
    const heading = headings[next];
    if (heading !== undefined && heading.start === i) {
      next++;
      const parsed = parseVersionHeading(heading.text);
      // `### Node.js 20.1` under a release is a section of it; a project's name before its
      // version (`Towncrier 24.8.0`) is a release only at the level of the open one or above.
      const release: VersionHeading | null = parsed !== null && parsed.named && open !== null && heading.level > open.level ? null : parsed;
      if (release !== null) {
        if (entries.length >= CHANGELOG_LIMITS.maxEntries) break;
        open = {
          version: release.version,
          date: release.date,
          heading: plainHeading(heading.text),
          rawHeading: heading.text,
          level: heading.level,
          line: i + 1 + (heading.size === 3 ? 1 : 0),
          body: [],
          bodyChars: 0,
          full: false,
        };
        entries.push(open);
        i += heading.size - 1;
        continue;
      }
      if (open !== null && (heading.level < open.level || (heading.level === open.level && CLOSES_AT_LEVEL.test(plainHeading(heading.text))))) open = null;
      if (open !== null) {
        if (format === 'rst') {
          pushBody(open, '');
          pushBody(open, `${'#'.repeat(Math.min(6, 2 + heading.level - open.level))} ${heading.text}`);
          pushBody(open, '');
        } else {
          for (let k = 0; k < heading.size; k++) pushBody(open, lines[i + k] ?? '');
        }
      }
      i += heading.size - 1;
      continue;
    }
    const line = lines[i] ?? '';
    if (format !== 'rst' && line.length <= CHANGELOG_LIMITS.maxHeadingChars) {
      const definition = LINK_DEFINITION.exec(line);
      if (definition) {
        const label = (definition[1] ?? '').toLowerCase();
        if (!definitions.has(label) && definitions.size < CHANGELOG_LIMITS.maxLinkDefinitions) definitions.set(label, line.trim());
        continue;
      }
    }
    if (open !== null && !(line.length <= CHANGELOG_LIMITS.maxHeadingChars && INVISIBLE.test(line))) pushBody(open, line);
  }

  return entries.map((entry) => {
    const body = dedent(entry.body);
    // Runs of blank lines say nothing in Markdown; one is kept.
    const markdown = (format === 'rst' ? rstToMarkdown(body) : body.join('\n')).replace(/\n[ \t]*\n(?:[ \t]*\n)+/g, '\n\n').trim();
    return {
      version: entry.version,
      date: entry.date ?? releasedDate(body),
      heading: entry.heading,
      text: withDefinitions(markdown, entry.rawHeading, definitions),
      line: entry.line,
    };
  });
}
