import type { IncomingMessage } from 'node:http';

/**
 * Each header line's value for the given (lower-case) names. Built from `rawHeaders`, not
 * `headers`, which joins repeated lines with commas and so hides that a header came twice.
 */
export function headerLines(raw: IncomingMessage, names: ReadonlySet<string>): Record<string, string[]> {
  const lines: Record<string, string[]> = {};
  const rawHeaders = raw.rawHeaders;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    if (!names.has(name)) continue;
    (lines[name] ??= []).push(rawHeaders[i + 1] ?? '');
  }
  return lines;
}
