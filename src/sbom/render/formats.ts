import type { Format } from 'ajv';
import { LRUCache } from 'lru-cache';
import { formats } from '../validate/cyclonedx-runtime.cjs';

/**
 * The string formats a document's fields must meet, as predicates. Emails are checked by the very
 * function the CycloneDX validator runs (its runtime's `formats`; `formatCheck` reads any other,
 * `date-time` for one), so a value kept here can never fail validation there. Links are held to
 * more than the validator checks: it accepts any string as an `iri-reference` (as the CycloneDX
 * library does), other tools check RFC 3987, and SPDX's tools check their own patterns.
 */

/** A format of the validator's runtime as a predicate (Ajv's forms: true, pattern, function, definition). */
function formatCheck(name: string): (text: string) => boolean {
  const format: Format | undefined = formats[name];
  if (format === undefined) throw new TypeError(`the validator has no format ${name}`);
  const check = typeof format === 'object' && !(format instanceof RegExp) ? format.validate : format;
  if (check === true) return () => true;
  if (typeof check === 'string') {
    const pattern = new RegExp(check, 'u');
    return (text) => pattern.test(text);
  }
  if (check instanceof RegExp) return (text) => check.test(text);
  return (text) => (check as (value: string) => unknown)(text) === true;
}

const idnEmail = formatCheck('idn-email');
/**
 * Verdicts on emails by their text: the validator's parser takes about 0.2 ms per address, and an
 * analysis meets the same few authors over and over.
 */
const emails = new LRUCache<string, boolean>({ max: 2_000 });

/** CycloneDX `idn-email` (an organizational contact's `email`). */
export function isEmail(text: string): boolean {
  // No address without an @; the parser need not say so.
  if (!text.includes('@')) return false;
  let verdict = emails.get(text);
  if (verdict === undefined) {
    verdict = idnEmail(text);
    emails.set(text, verdict);
  }
  return verdict;
}

// RFC 3986 `URI-reference`, each rule as the RFC writes it (an IRI is first mapped to a URI).
const HEX = '%[0-9A-Fa-f]{2}';
const PLAIN = "A-Za-z0-9\\-._~!$&'()*+,;=";
const PCHAR = `(?:[${PLAIN}:@]|${HEX})`;
const SEGMENT_NZ_NC = `(?:[${PLAIN}@]|${HEX})+`;
const QUERY = `(?:[${PLAIN}:@/?]|${HEX})*`;
const USERINFO = `(?:[${PLAIN}:]|${HEX})*`;
const IP_LITERAL = `\\[(?:[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\\.[${PLAIN}:]+)\\]`;
const REG_NAME = `(?:[${PLAIN}]|${HEX})*`;
const AUTHORITY = `(?:${USERINFO}@)?(?:${IP_LITERAL}|${REG_NAME})(?::[0-9]*)?`;
const PATH_ABEMPTY = `(?:/${PCHAR}*)*`;
const PATH_ABSOLUTE = `/(?:${PCHAR}+${PATH_ABEMPTY})?`;
const TAIL = `(?:\\?${QUERY})?(?:#${QUERY})?`;
const URI = `[A-Za-z][A-Za-z0-9+\\-.]*:(?://${AUTHORITY}${PATH_ABEMPTY}|${PATH_ABSOLUTE}|${PCHAR}+${PATH_ABEMPTY}|)${TAIL}`;
const RELATIVE_REF = `(?://${AUTHORITY}${PATH_ABEMPTY}|${PATH_ABSOLUTE}|${SEGMENT_NZ_NC}${PATH_ABEMPTY}|)${TAIL}`;
const URI_REFERENCE = new RegExp(`^(?:${URI}|${RELATIVE_REF})$`);

/** RFC 3987 `ucschar`: the non-ASCII characters an IRI may hold outside its scheme, as if percent-encoded. */
const UCSCHAR =
  /[\u{A0}-\u{D7FF}\u{F900}-\u{FDCF}\u{FDF0}-\u{FFEF}\u{10000}-\u{1FFFD}\u{20000}-\u{2FFFD}\u{30000}-\u{3FFFD}\u{40000}-\u{4FFFD}\u{50000}-\u{5FFFD}\u{60000}-\u{6FFFD}\u{70000}-\u{7FFFD}\u{80000}-\u{8FFFD}\u{90000}-\u{9FFFD}\u{A0000}-\u{AFFFD}\u{B0000}-\u{BFFFD}\u{C0000}-\u{CFFFD}\u{D0000}-\u{DFFFD}\u{E1000}-\u{EFFFD}]/gu;
const NON_ASCII = /[^\x20-\x7E]/;

/** Whether `text` is an RFC 3987 IRI reference (its private-use characters refused). */
export function isIriReference(text: string): boolean {
  return URI_REFERENCE.test(NON_ASCII.test(text) ? text.replace(UCSCHAR, '%00') : text);
}

const ABSOLUTE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:[^/?#@]*@)?([^/?#:]*)/;

/** A scheme-qualified IRI with a host whose scheme `schemes` accepts: a link a reader can follow. */
export function isLink(text: string, schemes: RegExp): boolean {
  const parts = ABSOLUTE.exec(text);
  return parts !== null && schemes.test(parts[1] ?? '') && (parts[2] ?? '') !== '' && isIriReference(text);
}

/** Web pages (homepages, an author's page). */
export const WEB = /^https?$/i;
/** Where a repository can be cloned from, npm's `git+<transport>` forms included. */
export const VCS = /^(?:https?|git|ssh|svn|svn\+ssh|hg|bzr|(?:git|hg|svn|bzr)\+(?:https?|ssh|git|file))$/i;
/** Where a package can be downloaded from. */
export const DOWNLOAD = /^(?:https?|ftp|sftp|git|ssh|svn|(?:git|hg|svn|bzr)\+[a-z]+)$/i;

// The SPDX project's own checks of SPDX 2.3 URLs and download locations (spdx-tools' `uri_validators`),
// matched in full here.
const SPDX_URL =
  "(?:http://www\\.|https://www\\.|http://|https://|ssh://|git://|svn://|sftp://|ftp://)?(?:[\\w\\-.!~*'()%;:&=+$,]+@)?[a-z0-9]+(?:[\\-.][a-z0-9]+){0,100}\\.[a-z]{2,5}(?::[0-9]{1,5})?(?:/.*)?";
const SPDX_URL_PATTERN = new RegExp(`^${SPDX_URL}$`);
const SPDX_DOWNLOAD_PATTERN = new RegExp(
  `^(?:(?:(?:git|hg|svn|bzr)\\+)?${SPDX_URL}|git\\+git@[a-zA-Z0-9.\\-]+:[a-zA-Z0-9/\\\\.@\\-]+|bzr\\+lp:[a-zA-Z0-9.\\-]+)$`,
);

/** An SPDX `homepage`: a web link SPDX's tools accept as a URL. */
export function isSpdxUrl(text: string): boolean {
  return SPDX_URL_PATTERN.test(text) && isLink(text, WEB);
}

/** An SPDX `downloadLocation` (other than NONE and NOASSERTION) that SPDX's tools accept. */
export function isSpdxDownloadLocation(text: string): boolean {
  return SPDX_DOWNLOAD_PATTERN.test(text) && isLink(text, DOWNLOAD);
}
