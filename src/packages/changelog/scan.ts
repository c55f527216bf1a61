/**
 * Finds the headings of a changelog's lines, one pass, no backtracking across lines.
 *
 * Markdown (and text): ATX headings `#`…`######` (closing `#`s dropped); setext headings, a line
 * after a blank line underlined with `===` (level 1) or `---` (level 2); nothing inside fenced
 * code blocks. Text files also take a bare line, starting in column 0, that reads as a release
 * heading with no project name before the version (`2018-06-17: Version 4.0.1`,
 * `1.2.3 / 2020-01-01`), at level 1.
 * reStructuredText: a title underlined, or over- and underlined, with one repeated punctuation
 * character (at least three); levels follow the order in which the adornment styles first appear,
 * as docutils does.
 */
import { CHANGELOG_LIMITS, type ChangelogFormat } from './types.js';
import { parseVersionHeading } from './heading.js';

export interface Heading {
  readonly level: number;
  readonly text: string;
  /** Index of the first line the heading occupies (an overline, or the title). */
  readonly start: number;
  /** Lines the heading occupies. */
  readonly size: number;
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,9}[.)])(?:\s|$)/;
const RST_ADORNMENT = /^([!-/:-@[-`{-~])\1{2,}[ \t]*$/;

function short(line: string | undefined): line is string {
  return line !== undefined && line.length <= CHANGELOG_LIMITS.maxHeadingChars;
}

function blank(line: string | undefined): boolean {
  return line === undefined || line.trim() === '';
}

/** Calls `visit` with each heading in order; `visit` returns false to stop. Lines between headings are body. */
export function scanHeadings(lines: readonly string[], format: ChangelogFormat, visit: (h: Heading) => boolean): void {
  if (format === 'rst') scanRst(lines, visit);
  else scanMarkdown(lines, format === 'text', visit);
}

function scanMarkdown(lines: readonly string[], bare: boolean, visit: (h: Heading) => boolean): void {
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.length <= CHANGELOG_LIMITS.maxHeadingChars) {
      const f = FENCE.exec(line);
      if (f) {
        const marker = f[1] ?? '';
        if (fence === null) fence = marker;
        else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
        continue;
      }
    }
    if (fence !== null || !short(line) || blank(line)) continue;
    const atx = ATX.exec(line);
    if (atx) {
      const text = (atx[2] ?? '').replace(/(?:^|[ \t]+)#+$/, '');
      if (!visit({ level: (atx[1] ?? '#').length, text, start: i, size: 1 })) return;
      continue;
    }
    const next = lines[i + 1];
    if (short(next) && blank(lines[i - 1]) && !/^(?: {4}|\t)/.test(line) && !LIST_ITEM.test(line)) {
      const under = SETEXT_UNDERLINE.exec(next);
      if (under) {
        if (!visit({ level: (under[1] ?? '=').startsWith('=') ? 1 : 2, text: line.trim(), start: i, size: 2 })) return;
        i++;
        continue;
      }
    }
    // A bare line is read as a release only without a leading word that may be prose (`Node 14.17`).
    if (bare && /^\S/.test(line) && !LIST_ITEM.test(line) && parseVersionHeading(line)?.named === false) {
      if (!visit({ level: 1, text: line.trim(), start: i, size: 1 })) return;
    }
  }
}

function scanRst(lines: readonly string[], visit: (h: Heading) => boolean): void {
  const levels = new Map<string, number>();
  const levelOf = (style: string): number => {
    let level = levels.get(style);
    if (level === undefined) {
      level = levels.size + 1;
      levels.set(style, level);
    }
    return level;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!short(line) || blank(line)) continue;
    const over = RST_ADORNMENT.exec(line);
    const title = lines[i + 1];
    const under = lines[i + 2];
    if (over && short(title) && !blank(title) && short(under) && under.trimEnd() === line.trimEnd()) {
      if (!visit({ level: levelOf(`o${over[1] ?? ''}`), text: title.trim(), start: i, size: 3 })) return;
      i += 2;
      continue;
    }
    if (over || /^\s/.test(line)) continue;
    const u = short(title) ? RST_ADORNMENT.exec(title) : null;
    if (u && blank(lines[i - 1])) {
      if (!visit({ level: levelOf(`u${u[1] ?? ''}`), text: line.trim(), start: i, size: 2 })) return;
      i++;
    }
  }
}
