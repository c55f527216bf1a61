import { isPlatform } from './detect.js';
import type { Declaration } from '../../model/model.js';
import { parseJson } from '../../model/safe-parse.js';
import { AnalysisError, type FileProblem } from '../../model/types.js';
import { isRecord, text } from '../shared/narrow.js';

/** `composer.json` as far as the inventory needs it: the project's name, license and requirements. */
export interface ComposerManifest {
  readonly path: string;
  readonly name: string | null;
  readonly version: string | null;
  readonly license: string | null;
  readonly require: Readonly<Record<string, string>>;
  readonly requireDev: Readonly<Record<string, string>>;
}

export type JsonRead<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: FileProblem };

export { isRecord };

export { text };

/**
 * Composer's `license`: a string, or an array of alternatives (Composer documents an array as the
 * user's choice, the same as `(A or B)`): joined with OR.
 */
export function licenseOf(value: unknown): string | null {
  if (typeof value === 'string') return text(value);
  if (!Array.isArray(value)) return null;
  const list = value.map(text).filter((v): v is string => v !== null);
  if (list.length === 0) return null;
  return list.length === 1 ? (list[0] ?? null) : `(${list.join(' OR ')})`;
}

/** A name → constraint map; PHP writes an empty one as `[]`. */
export function links(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  const out: Record<string, string> = {};
  for (const [name, constraint] of Object.entries(value)) if (typeof constraint === 'string') out[name] = constraint;
  return out;
}

/** JSON of an uploaded file, or the problem naming it (a limit still fails the analysis). */
export function readJson(path: string, content: string): JsonRead<unknown> {
  try {
    return { ok: true, value: parseJson(path, content) };
  } catch (error) {
    if (error instanceof AnalysisError && !error.problems.some((p) => p.limit !== undefined)) {
      const where = error.problems[0];
      return { ok: false, problem: { path, reason: 'malformed', message: 'not valid JSON', ...(where?.line === undefined ? {} : { line: where.line }), ...(where?.column === undefined ? {} : { column: where.column }) } };
    }
    throw error;
  }
}

export function readComposerJson(path: string, content: string): JsonRead<ComposerManifest> {
  const read = readJson(path, content);
  if (!read.ok) return read;
  if (!isRecord(read.value)) return { ok: false, problem: { path, reason: 'malformed', message: 'composer.json is not a JSON object' } };
  const doc = read.value;
  return {
    ok: true,
    value: { path, name: text(doc['name']), version: text(doc['version']), license: licenseOf(doc['license']), require: links(doc['require']), requireDev: links(doc['require-dev']) },
  };
}

/** Every requirement of a manifest as a declaration (`require`, `require-dev`; platform ones included). */
export function declarationsOf(manifest: ComposerManifest, only: (name: string) => boolean = () => true): Declaration[] {
  const out: Declaration[] = [];
  for (const [kind, map] of [['require', manifest.require], ['require-dev', manifest.requireDev]] as const) {
    for (const [name, range] of Object.entries(map)) {
      if (only(name)) out.push({ manifest: manifest.path, name, range, kind, ecosystem: 'composer', ...(isPlatform(name) ? { provided: true as const } : {}) });
    }
  }
  return out;
}
