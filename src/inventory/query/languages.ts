import * as linguist from 'linguist-languages';

/**
 * The languages the `languages` filter knows: GitHub Linguist's list (the same data `languageOf`
 * classifies files with), each under the id the filter takes — the name lower-cased, as entries
 * carry it. One source, so the filter and `GET /v1/languages` agree by construction.
 */

export interface LanguageInfo {
  /** What the `languages` filter takes and list entries carry: `typescript`, `c++`. */
  readonly id: string;
  readonly name: string;
  readonly aliases: readonly string[];
  readonly extensions: readonly string[];
  readonly filenames: readonly string[];
  /** Linguist's type: `programming`, `markup`, `data` or `prose`. */
  readonly type: string;
}

interface LinguistEntry {
  readonly type?: string;
  readonly aliases?: readonly string[];
  readonly extensions?: readonly string[];
  readonly filenames?: readonly string[];
}

/** The filter's id of a Linguist language name. */
export function languageId(name: string): string {
  return name.toLowerCase();
}

export const LANGUAGES: readonly LanguageInfo[] = Object.entries(linguist as Readonly<Record<string, LinguistEntry>>)
  .map(([name, data]) => ({
    id: languageId(name),
    name,
    aliases: [...(data.aliases ?? [])],
    extensions: [...(data.extensions ?? [])],
    filenames: [...(data.filenames ?? [])],
    type: data.type ?? 'programming',
  }))
  .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/**
 * Languages matching `q` (case-insensitive), best first: the id or an alias equal to it, then an
 * extension equal to it (`ts`, `.ts`) or a file name, then ids, names and aliases starting with
 * it, then containing it; ties by id. Without `q`, every language by id.
 */
export function searchLanguages(q: string | undefined, limit: number): LanguageInfo[] {
  const query = (q ?? '').trim().toLowerCase();
  if (query === '') return LANGUAGES.slice(0, limit);
  const ext = query.startsWith('.') ? query : `.${query}`;
  const ranked: { language: LanguageInfo; rank: number }[] = [];
  for (const language of LANGUAGES) {
    const words = [language.id, ...language.aliases.map((a) => a.toLowerCase())];
    let rank = -1;
    if (words.includes(query)) rank = 0;
    else if (language.extensions.some((e) => e.toLowerCase() === ext) || language.filenames.some((f) => f.toLowerCase() === query)) rank = 1;
    else if (words.some((w) => w.startsWith(query))) rank = 2;
    else if (words.some((w) => w.includes(query))) rank = 3;
    if (rank >= 0) ranked.push({ language, rank });
  }
  return ranked
    .sort((a, b) => a.rank - b.rank || (a.language.id < b.language.id ? -1 : a.language.id > b.language.id ? 1 : 0))
    .slice(0, limit)
    .map((r) => r.language);
}
