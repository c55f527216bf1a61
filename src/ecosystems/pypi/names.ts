/** Python package names and requirements, as PEP 503 and PEP 508 define them. */

/** PEP 503 normalised name: the identity of a Python package (`Zope.Interface` = `zope-interface`). */
export function pep503(name: string): string {
  return name.replace(/[-_.]+/g, '-').toLowerCase();
}

export interface Requirement {
  /** As written. */
  readonly name: string;
  readonly extras: readonly string[];
  /** The version specifier (`>=2.0,<3`), '' when none. */
  readonly specifier: string;
  /** `name @ url` direct references. */
  readonly url: string | null;
  readonly marker: string | null;
}

// A small reader of PEP 508 requirement strings: no npm library parses them (the PEP 440 ones
// only parse versions), and the grammar needed here is one line of name, extras, specifier and
// marker. Linear in the string; never evaluates the marker.
const REQUIREMENT = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[([^\]]*)\])?\s*(.*)$/;

/** A PEP 508 requirement (`requests[socks]>=2.0; python_version < "3.11"`), or null. */
export function parseRequirement(text: string): Requirement | null {
  if (text.length > 4_096) return null;
  const semicolon = text.indexOf(';');
  const body = semicolon === -1 ? text : text.slice(0, semicolon);
  const marker = semicolon === -1 ? null : text.slice(semicolon + 1).trim() || null;
  const match = REQUIREMENT.exec(body);
  if (!match?.[1]) return null;
  const extras = (match[2] ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  let rest = (match[3] ?? '').trim();
  let url: string | null = null;
  if (rest.startsWith('@')) {
    url = rest.slice(1).trim() || null;
    rest = '';
  }
  const specifier = rest.replace(/^\(|\)$/g, '').replace(/\s+/g, '');
  return { name: match[1], extras, specifier, url, marker };
}

/** The version an exact pin names (`==1.2.3`, `===1.2.3`), or null. */
export function pinnedVersion(specifier: string): string | null {
  const match = /^===?([^,;*\s]+)$/.exec(specifier.trim());
  return match?.[1] ?? null;
}
