/**
 * Layout of the text format: every line at most TEXT_WIDTH columns (a terminal, a code review, a
 * CI log). Nothing is cut: long words and cells continue on the next lines.
 */

export const TEXT_WIDTH = 120;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** What a terminal shows as one column each (near enough: wide CJK characters count as one). */
function chars(text: string): string[] {
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

/** `text` in pieces of at most `width` characters, broken after a `/` where one is near the end (paths stay readable). */
function chop(text: string, width: number): string[] {
  const pieces: string[] = [];
  let rest = chars(text);
  while (rest.length > width) {
    const slash = rest.lastIndexOf('/', width - 1);
    const cut = slash >= width / 2 ? slash + 1 : width;
    pieces.push(rest.slice(0, cut).join(''));
    rest = rest.slice(cut);
  }
  pieces.push(rest.join(''));
  return pieces;
}

/**
 * Words of `text` in lines of at most `width` columns (its own spacing kept), continuation lines
 * starting with `indent`; a word longer than a line is cut.
 */
export function wrap(text: string, width = TEXT_WIDTH, indent = ''): string[] {
  const lines: string[] = [];
  let line: string | null = null;
  const room = Math.max(1, width - chars(indent).length);
  for (const word of text.split(' ')) {
    const candidate: string = line === null ? word : `${line} ${word}`;
    if (chars(candidate).length <= width) {
      line = candidate;
      continue;
    }
    // Spaces at a break are the break.
    if (word === '') continue;
    if (line !== null) lines.push(line);
    const pieces = chop(word, room);
    for (const piece of pieces.slice(0, -1)) lines.push(indent + piece);
    line = indent + (pieces.at(-1) ?? '');
  }
  lines.push(line ?? '');
  return lines;
}

/**
 * A table within `width` columns: each column but the last at most its cap, the last taking what
 * is left; a longer cell continues on the following lines of its column.
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[], caps: readonly number[], width = TEXT_WIDTH, gap = 2): string[] {
  const count = header.length;
  const natural = header.map((h, i) => Math.max(chars(h).length, ...rows.map((r) => chars(r[i] ?? '').length)));
  const widths = natural.map((n, i) => (i === count - 1 ? n : Math.min(n, caps[i] ?? n)));
  const used = widths.slice(0, -1).reduce((a, b) => a + b, 0) + gap * (count - 1);
  widths[count - 1] = Math.max(8, Math.min(natural[count - 1] ?? 0, width - used));
  const lines: string[] = [];
  for (const row of [header, ...rows]) {
    const cells = widths.map((w, i) => chop(row[i] ?? '', w));
    const height = Math.max(...cells.map((c) => c.length));
    for (let l = 0; l < height; l++) {
      const parts = cells.map((c, i) => (i === count - 1 ? (c[l] ?? '') : (c[l] ?? '').padEnd(widths[i] ?? 0)));
      lines.push(parts.join(' '.repeat(gap)).trimEnd());
    }
  }
  return lines;
}
