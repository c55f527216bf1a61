import { createHash } from 'node:crypto';
import { INTENTS, type Intent } from './classify.js';
import { globsProblem } from './glob.js';
import type { ListTarget } from '../targets.js';
import { BoundedMemo } from '../../model/bounded-memo.js';

/** What a list request selects inside a target, normalised; a cursor is bound to it. */
export interface Selection {
  /** Selectors: literal paths ('' is the root) and globs, in request order, deduplicated. */
  readonly paths: readonly string[];
  readonly recursive: boolean;
  readonly limit: number;
  readonly fileTypes: readonly string[];
  readonly languages: readonly string[];
  readonly intents: readonly Intent[];
}

export const PATH_MAX_BYTES = 2048;

export type SelectionParse = { readonly ok: true; readonly selection: Selection } | { readonly ok: false; readonly detail: string };

export interface SelectionInput {
  readonly paths?: readonly string[] | undefined;
  readonly recursive?: boolean | undefined;
  readonly limit?: number | undefined;
  readonly file_types?: readonly string[] | undefined;
  readonly languages?: readonly string[] | undefined;
  readonly intents?: readonly string[] | undefined;
}

/** `./src/` → `src`; `/` → '' (the root). Sites drop one leading slash only. */
function normalizePath(path: string, site: boolean): string {
  let p = path;
  if (site) {
    if (p === '/') return '';
    if (p.startsWith('/')) p = p.slice(1);
    return p;
  }
  while (p.startsWith('./')) p = p.slice(2);
  if (p === '.' || p === '/') return '';
  return p.replace(/^\/+/, '').replace(/\/+$/, '');
}

/** `file_types` and `languages` are trimmed and lowercased; `intents` are enum values, taken exactly. */
function filters(values: readonly string[] | undefined, field: string, fold: boolean): { ok: true; values: string[] } | { ok: false; detail: string } {
  const out: string[] = [];
  for (const [i, raw] of (values ?? []).entries()) {
    const value = fold ? raw.trim().toLowerCase() : raw;
    if (value.trim() === '') return { ok: false, detail: `${field}[${i}] must not be blank` };
    if (!out.includes(value)) out.push(value);
  }
  return { ok: true, values: out };
}

/** Rules of the spec's ListRequest table that a JSON schema cannot state. */
export function parseSelection(input: SelectionInput, target: ListTarget): SelectionParse {
  const site = target.kind === 'site';
  const paths: string[] = [];
  for (const [i, raw] of (input.paths ?? []).entries()) {
    if (raw.trim() === '') return { ok: false, detail: `paths[${i}] must not be blank` };
    if (Buffer.byteLength(raw, 'utf8') > PATH_MAX_BYTES) return { ok: false, detail: `paths[${i}] is longer than ${PATH_MAX_BYTES} UTF-8 bytes` };
    const path = normalizePath(raw, site);
    if (!paths.includes(path)) paths.push(path);
  }
  const globs = globsProblem(paths);
  if (globs !== null) return { ok: false, detail: globs };
  const parsed = {
    fileTypes: filters(input.file_types, 'file_types', true),
    languages: filters(input.languages, 'languages', true),
    intents: filters(input.intents, 'intents', false),
  };
  for (const [field, result] of Object.entries({ file_types: parsed.fileTypes, languages: parsed.languages, intents: parsed.intents })) {
    if (!result.ok) return result;
    if (site && result.values.length > 0) return { ok: false, detail: `${field} cannot be used with a site: target` };
  }
  if (!parsed.fileTypes.ok || !parsed.languages.ok || !parsed.intents.ok) return { ok: false, detail: 'invalid filters' };
  const intents: Intent[] = [];
  for (const [i, value] of parsed.intents.values.entries()) {
    const intent = INTENTS.find((known) => known === value);
    if (!intent) return { ok: false, detail: `intents[${i}] must be one of: ${INTENTS.join(', ')}` };
    intents.push(intent);
  }
  return {
    ok: true,
    selection: {
      paths: paths.length === 0 ? [''] : paths,
      recursive: input.recursive ?? false,
      limit: input.limit ?? 100,
      fileTypes: parsed.fileTypes.values,
      languages: parsed.languages.values,
      intents,
    },
  };
}

/** The canonical text selectionKey() hashes: equal for selections that select the same. */
function selectionText(target: ListTarget, selection: Selection): string {
  return JSON.stringify([
    target.text,
    [...selection.paths].sort(),
    selection.recursive,
    selection.limit,
    [...selection.fileTypes].sort(),
    [...selection.languages].sort(),
    [...selection.intents].sort(),
  ]);
}

function hashSelection(canonical: string): string {
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

/** Identity of (target, selection): a cursor from any other selection is refused. */
export function selectionKey(target: ListTarget, selection: Selection): string {
  return hashSelection(selectionText(target, selection));
}

/**
 * selectionKey() with the hashes of recent selections kept: a client paging or polling one
 * selection asks for the same key on every request.
 */
export class SelectionKeys {
  private readonly keys: BoundedMemo<string>;

  constructor(max = 10_000) {
    this.keys = new BoundedMemo(max);
  }

  of(target: ListTarget, selection: Selection): string {
    return this.keys.get(selectionText(target, selection), hashSelection);
  }
}
