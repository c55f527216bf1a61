/**
 * Release dates as changelog headings write them, read into ISO `yyyy-mm-dd`:
 *   2020-01-01, 2020/01/01, 2020.01.01, 2020-1-1 (year first, optionally followed by a time);
 *   January 1, 2020 / Jan 1st 2020 / Jan. 1, 2020 (month name first);
 *   1 Jan 2020 / 1st January, 2020 (day first);
 *   01/30/2023 or 30/01/2023 (year last; read only when the day is unambiguous, i.e. above 12).
 * An impossible calendar date (2020-02-30) is no date. Input is one short heading line.
 */

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10,
  nov: 11, november: 11, dec: 12, december: 12,
};

const YEAR_FIRST = /(?<![\d.])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\d])/;
const MONTH_FIRST = /\b([A-Za-z]{3,9})\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b/;
const DAY_FIRST = /\b(\d{1,2})(?:st|nd|rd|th)? ([A-Za-z]{3,9})\.?,? (\d{4})\b/;
const YEAR_LAST = /(?<![\d.])(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?![\d])/;

function iso(year: number, month: number, day: number): string | null {
  if (year < 1970 || year > 2200 || month < 1 || month > 12 || day < 1) return null;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > days) return null;
  return `${String(year)}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function monthOf(name: string): number | null {
  return MONTHS[name.toLowerCase()] ?? null;
}

/** The first date written in `text`, as `yyyy-mm-dd`, or null. */
export function findDate(text: string): string | null {
  const y = YEAR_FIRST.exec(text);
  if (y) {
    const date = iso(Number(y[1]), Number(y[2]), Number(y[3]));
    if (date !== null) return date;
  }
  const m = MONTH_FIRST.exec(text);
  if (m) {
    const month = monthOf(m[1] ?? '');
    if (month !== null) {
      const date = iso(Number(m[3]), month, Number(m[2]));
      if (date !== null) return date;
    }
  }
  const d = DAY_FIRST.exec(text);
  if (d) {
    const month = monthOf(d[2] ?? '');
    if (month !== null) {
      const date = iso(Number(d[3]), month, Number(d[1]));
      if (date !== null) return date;
    }
  }
  const l = YEAR_LAST.exec(text);
  if (l) {
    const first = Number(l[1]);
    const second = Number(l[2]);
    const year = Number(l[3]);
    if (first > 12 && second <= 12) return iso(year, second, first);
    if (second > 12 && first <= 12) return iso(year, first, second);
  }
  return null;
}
