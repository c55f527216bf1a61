import { DOWNLOAD, isEmail, isLink, VCS, WEB } from './formats.js';

/**
 * Registry metadata and lockfile records made to fit the documents: text without the control
 * characters that break them, emails the schema's format accepts, links that are IRIs. A value
 * that cannot be made to fit is left out and counted (the evidence notice says how many); an
 * optional field never fails a document.
 */

/** Fields whose values can be left out, by the words the notice uses. */
export type LeftOutField = 'version' | 'author email' | 'author URL' | 'homepage' | 'repository' | 'download location';

/** How many values of each field were left out. */
export class LeftOut {
  private readonly counts = new Map<LeftOutField, number>();

  add(field: LeftOutField, count = 1): void {
    if (count > 0) this.counts.set(field, (this.counts.get(field) ?? 0) + count);
  }

  /** A copy, for a renderer that leaves out more of its own. */
  copy(): LeftOut {
    const copy = new LeftOut();
    for (const [field, count] of this.counts) copy.add(field, count);
    return copy;
  }

  entries(): [LeftOutField, number][] {
    return [...this.counts];
  }
}

// Line breaks and tabs (a space in one-line text), then what no document should hold: C0 and C1
// controls, DEL, non-characters and unpaired surrogates.
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\0-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const UNUSUAL = /[^\x20-\x7E]/;

/** One-line text (a name, a version, an author): null when nothing is left. */
export function oneLine(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = UNUSUAL.test(value) ? value.replace(BREAKS, ' ').replace(CONTROLS, '').replace(/ {2,}/g, ' ') : value;
  const trimmed = text.trim();
  return trimmed === '' ? null : trimmed;
}

/** Text that may run over lines (a description): line breaks kept as `\n`, tabs kept. */
export function multiLine(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = UNUSUAL.test(value) ? value.replace(/\r\n?|[\u0085\u2028\u2029]/g, '\n').replace(/[\v\f]/g, ' ').replace(CONTROLS, '') : value;
  const trimmed = text.trim();
  return trimmed === '' ? null : trimmed;
}

/** A person as the documents hold one: at least one part. */
export interface Person {
  readonly name: string | null;
  readonly email: string | null;
  readonly url: string | null;
}

export interface FittedPerson {
  readonly person: Person | null;
  readonly leftOut: readonly LeftOutField[];
}

const MAILTO = /^mailto:/i;
/** A bracketed part meant as a link: a scheme and `//`, or a `www.` host. */
const LINK_LIKE = /^(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/|www\.)/i;

/**
 * An author in npm's person form, "Name <email> (url)" (each part optional; objects were written
 * in it by the registry readers). `<…>` holding a link is the author's URL (path-parse's author
 * "Javier Blanco <http://jbgutierrez.info>"); `(…)` holding an email is the email (SPDX's and
 * PyPI's habit); `(…)` holding neither stays part of the name ("Ada (ACME Inc.)").
 */
export function fitPerson(value: string | null): FittedPerson {
  const text = oneLine(value);
  if (text === null) return { person: null, leftOut: [] };
  if (isEmail(text)) return { person: { name: null, email: text, url: null }, leftOut: [] };
  const leftOut: LeftOutField[] = [];
  let email: string | null = null;
  let url: string | null = null;
  let name = text;
  const angled = /<([^<>]*)>/.exec(text);
  if (angled) {
    name = text.slice(0, angled.index) + text.slice(angled.index + angled[0].length);
    const inner = (angled[1] ?? '').trim().replace(MAILTO, '');
    if (isEmail(inner)) email = inner;
    else if (isLink(inner, WEB)) url = inner;
    else if (inner !== '') leftOut.push(LINK_LIKE.test(inner) ? 'author URL' : 'author email');
  }
  const round = /\(([^()]*)\)/.exec(name);
  if (round) {
    const inner = (round[1] ?? '').trim();
    const rest = name.slice(0, round.index) + name.slice(round.index + round[0].length);
    if (isLink(inner, WEB)) {
      url = inner;
      name = rest;
    } else if (isEmail(inner.replace(MAILTO, ''))) {
      email ??= inner.replace(MAILTO, '');
      name = rest;
    } else if (LINK_LIKE.test(inner)) {
      leftOut.push('author URL');
      name = rest;
    }
  }
  const person = { name: oneLine(name), email, url };
  return { person: person.name === null && email === null && url === null ? null : person, leftOut };
}

/** npm's shorthands for hosted repositories. */
const HOSTED: Readonly<Record<string, string>> = { github: 'github.com', gitlab: 'gitlab.com', bitbucket: 'bitbucket.org', gist: 'gist.github.com' };

/**
 * A repository as a link: `github:owner/repo` as the https URL it stands for, git's scp-like
 * `git@host:path` (also after npm's `git+ssh://`) as the ssh URL it means.
 */
export function fitRepository(value: string | null): string | null {
  const text = oneLine(value);
  if (text === null) return null;
  const shorthand = /^(github|gitlab|bitbucket|gist):([\w.-]+(?:\/[\w.-]+)?)$/.exec(text);
  const host = shorthand?.[1] === undefined ? undefined : HOSTED[shorthand[1]];
  if (host !== undefined && shorthand?.[2] !== undefined) return `https://${host}/${shorthand[2]}`;
  const scp = /^(?:(git\+ssh|ssh):\/\/)?([\w.-]+@)?([\w.-]+):(?!\d*(?:\/|$))(.+)$/.exec(text);
  const link = scp && (scp[1] !== undefined || scp[2] !== undefined) ? `${scp[1] ?? 'ssh'}://${scp[2] ?? ''}${scp[3] ?? ''}/${(scp[4] ?? '').replace(/^\/+/, '')}` : text;
  return isLink(link, VCS) ? link : null;
}

/** A homepage: a web link, else nothing. */
export function fitHomepage(value: string | null): string | null {
  const text = oneLine(value);
  return text !== null && isLink(text, WEB) ? text : null;
}

/** Where a package was downloaded from (a lockfile's `resolved`), when it is a link. */
export function fitDownload(value: string | null): string | null {
  const text = oneLine(value);
  return text !== null && isLink(text, DOWNLOAD) ? text : null;
}

/** CycloneDX's `version` holds at most 1,024 characters (code points). */
export const MAX_VERSION = 1024;

export function fitVersion(value: string | null): string | null {
  const text = oneLine(value);
  // Code points, as JSON Schema's maxLength counts them.
  return text === null || (text.length > MAX_VERSION && Array.from(text).length > MAX_VERSION) ? null : text;
}
