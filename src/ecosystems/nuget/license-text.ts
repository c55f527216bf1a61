/**
 * The license a license file's text is. NuGet packages may ship their license as a file
 * (`<license type="file">`, the catalog's `licenseFile`); the documents want an SPDX id where the
 * text is a well-known license. No library in use matches license texts (spdx-correct mends ids,
 * not texts), and a full matcher (SPDX's templates) is far larger than the need: a table of each
 * well-known license's distinctive lines, matched on the text with case and spacing folded, says
 * which it is. Anything else is a named license: its title (the first line), never a URL.
 */

interface Known {
  readonly id: string;
  /** Every one of these occurs in the text (folded). */
  readonly all: readonly string[];
  /** None of these does. */
  readonly none?: readonly string[];
}

// Order matters: the LGPL's text names the GPL, BSD-3-Clause is BSD-2-Clause plus a clause. The
// GNU texts alone grant no later version (that is the notice's to say), hence `-only`.
const KNOWN: readonly Known[] = [
  { id: 'Apache-2.0', all: ['apache license', 'version 2.0, january 2004'] },
  { id: 'MPL-2.0', all: ['mozilla public license', 'version 2.0'] },
  { id: 'LGPL-3.0-only', all: ['gnu lesser general public license', 'version 3, 29 june 2007'] },
  { id: 'LGPL-2.1-only', all: ['gnu lesser general public license', 'version 2.1, february 1999'] },
  { id: 'GPL-3.0-only', all: ['gnu general public license', 'version 3, 29 june 2007'] },
  { id: 'GPL-2.0-only', all: ['gnu general public license', 'version 2, june 1991'] },
  { id: 'MIT', all: ['permission is hereby granted, free of charge, to any person obtaining a copy', 'the above copyright notice and this permission notice shall be included'] },
  { id: 'ISC', all: ['permission to use, copy, modify, and', 'distribute this software for any purpose with or without fee is hereby granted'] },
  { id: 'BSD-3-Clause', all: ['redistribution and use in source and binary forms', 'neither the name of'] },
  { id: 'BSD-2-Clause', all: ['redistribution and use in source and binary forms', 'this list of conditions and the following disclaimer'], none: ['neither the name of', 'advertising materials'] },
];

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * The license text of a response: the body itself, or for a web page (nuget.org's license page,
 * which the catalog's `licenseUrl` names for a license file) the text of its `<pre>` block.
 */
export function licenseTextOf(body: string): string {
  if (!/^\s*(<!doctype html|<html)/i.test(body)) return body;
  const pre = /<pre\b[^>]*>([\s\S]*?)<\/pre>/i.exec(body)?.[1];
  return decodeEntities((pre ?? body.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, '')).replace(/<[^>]+>/g, ' '));
}

/** The SPDX id the text is, else its title as a named license; null when the text is empty. */
export function licenseOfText(text: string): string | null {
  const folded = text.toLowerCase().replace(/\s+/g, ' ');
  for (const k of KNOWN) if (k.all.every((line) => folded.includes(line)) && !(k.none ?? []).some((line) => folded.includes(line))) return k.id;
  const title = text.split('\n').map((line) => line.trim()).find((line) => line !== '' && !/^https?:\/\//i.test(line));
  return title === undefined ? null : title.slice(0, 120);
}
