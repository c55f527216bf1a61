/**
 * Whether a heading's text names a release, and which. The grammar, after Markdown and
 * reStructuredText inline markup is removed (links `[1.2.3](url)` and `[1.2.3]` keep their text;
 * `**`, `__`, backticks, a trailing `_`/`__` of an rST reference and HTML tags go):
 *
 *   heading  = [lead-date sep] [prefix] version [rest]
 *   lead-date = yyyy-mm-dd (or / .)                      e.g. `2018-06-17: Version 4.0.1`
 *   prefix   = "Version" | "Release" | "Rel." | "Ver." | one word naming the project (`Towncrier`,
 *              `pytest`, `name@`), optionally followed by "Version"/"Release"
 *   version  = [v] digits ("." digits)+ [pre-release] ["+" build]
 *              pre-release: `-beta.1` (SemVer) or `rc1`, `.post1`, `b2`, `.dev0` (PEP 440)
 *   rest     = empty, or text starting with punctuation or a date, or one of the words
 *              released / yanked / unreleased; a date anywhere in it is the release date
 *
 * A dot is required in the version, so a year heading (`## 2020`) is not a release and
 * `4.0 migration guide` (rest starting with a plain word) is not one either. `Unreleased` has
 * no version and is no release.
 */
import { CHANGELOG_LIMITS } from './types.js';
import { findDate } from './dates.js';

export interface VersionHeading {
  readonly version: string;
  readonly date: string | null;
  /** The version follows a word that may name the project (`Towncrier 24.8.0`) or may be prose (`Node.js 20.1`). */
  readonly named: boolean;
}

const LEAD_DATE = /^(\d{4}[-/.]\d{1,2}[-/.]\d{1,2})\s*[:\-–—]?\s*/;
const PREFIX = /^(?:(?:version|release|rel\.|ver\.)\s+|[A-Za-z][\w.-]{0,60}(?:@|\s+)(?:(?:version|release)\s+)?)/i;
const VERSION = /^[vV]?\d+(?:\.\d+)+(?:(?:-|\.?(?=[A-Za-z]))[0-9A-Za-z]+(?:[.-][0-9A-Za-z]+)*)?(?:\+[0-9A-Za-z.-]+)?/;
const KEYWORD_PREFIX = /^(?:version|release|rel\.|ver\.)\s/i;
const REST_WORDS = /^(?:released|yanked|unreleased|release date)\b/i;

/** A heading's text without inline markup: what a reader sees. */
export function plainHeading(raw: string): string {
  return raw
    .replace(/<[^<>\n]{0,200}>/g, '')
    .replace(/\[([^\]\n]{0,200})\]\([^()\s]{0,500}\)/g, '$1')
    .replace(/\[([^\]\n]{0,200})\]/g, '$1')
    .replace(/`+/g, '')
    .replace(/_+(?=\s|$)/g, '')
    .replace(/\*\*|__/g, '')
    .replace(/^[*_\s]+|[*_\s]+$/g, '')
    .replace(/\s+/g, ' ');
}

function afterVersion(rest: string): boolean {
  const r = rest.trim();
  if (r === '') return true;
  if (!/^[A-Za-z]/.test(r)) return true;
  return REST_WORDS.test(r) || (findDate(r) !== null && /^[A-Za-z]{3,9}\.? \d/.test(r));
}

function versionAt(text: string): { version: string; rest: string } | null {
  const m = VERSION.exec(text);
  if (!m) return null;
  const rest = text.slice(m[0].length);
  // The version must end at a word boundary: `1.2.3x-y` or `1.2.3_4` is not one.
  if (rest !== '' && /^[\w]/.test(rest)) return null;
  if (!afterVersion(rest)) return null;
  return { version: m[0], rest };
}

/** The release a heading names, or null when it names none (a section like `Added`, `2020`, `Unreleased`). */
export function parseVersionHeading(raw: string): VersionHeading | null {
  if (raw.length > CHANGELOG_LIMITS.maxHeadingChars) return null;
  let text = plainHeading(raw);
  let leadDate: string | null = null;
  const lead = LEAD_DATE.exec(text);
  if (lead) {
    leadDate = findDate(lead[1] ?? '');
    if (leadDate === null) return null;
    text = text.slice(lead[0].length);
  }
  let found = versionAt(text);
  let named = false;
  if (found === null) {
    const prefix = PREFIX.exec(text);
    if (prefix) {
      found = versionAt(text.slice(prefix[0].length));
      named = !KEYWORD_PREFIX.test(prefix[0]);
    }
  }
  if (found === null) return null;
  return { version: found.version, date: leadDate ?? findDate(found.rest), named };
}
