import { isBunLock } from './parse-bun-lock.js';
import { basename, isObject } from './common.js';
import { isPackageLock, type PackageLock } from './parse-npm-lock.js';
import { isPnpmLock } from './parse-pnpm-lock.js';
import { isYarnLock } from './parse-yarn-lock.js';
import { parseJson as parseJsonStrict, parseJsonc, parseYaml } from '../../model/safe-parse.js';
import { AnalysisError, LimitExceededError, type InputFile } from '../../model/types.js';
import type { Claim } from '../types.js';

export type DetectedFile =
  | { readonly path: string; readonly kind: 'package-json'; readonly data: Record<string, unknown> }
  | { readonly path: string; readonly kind: 'npm-lock'; readonly data: PackageLock }
  | { readonly path: string; readonly kind: 'yarn-lock'; readonly content: string }
  | { readonly path: string; readonly kind: 'pnpm-lock'; readonly content: string }
  | { readonly path: string; readonly kind: 'bun-lock'; readonly data: Record<string, unknown> }
  | { readonly path: string; readonly kind: 'pnpm-workspace'; readonly packages: readonly string[] };

export type DetectedKind = DetectedFile['kind'];

export interface Detection {
  readonly files: DetectedFile[];
  /** Files that look like a manifest or lockfile but could not be read, with the reason. */
  readonly unreadable: Unreadable[];
}

/** A file named like a manifest or lockfile that could not be read: why, and where when the parser said. */
export interface Unreadable {
  readonly path: string;
  readonly reason: string;
  readonly line?: number;
  readonly column?: number;
}

/** Parsed data, or undefined when the text is not valid; a file over a limit fails the analysis. */
function attempt(parse: () => unknown, failed?: (error: unknown) => void): unknown {
  try {
    return parse();
  } catch (error) {
    if (error instanceof LimitExceededError) throw error;
    failed?.(error);
    return undefined;
  }
}

/** Where a JSON syntax error is, as the strict parser reported it. */
function positionOfFailure(error: unknown): { line?: number; column?: number } {
  const problem = error instanceof AnalysisError ? error.problems[0] : undefined;
  return { ...(problem?.line === undefined ? {} : { line: problem.line }), ...(problem?.column === undefined ? {} : { column: problem.column }) };
}

const MANIFEST_KEYS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];

/** npm's dependency maps are name → specifier strings (a NuGet or Composer file nests objects). */
function isDependencyMap(value: unknown): boolean {
  return isObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

function looksLikeManifest(json: Record<string, unknown>): boolean {
  const maps = MANIFEST_KEYS.filter((k) => json[k] !== undefined);
  if (maps.length > 0) return maps.every((k) => isDependencyMap(json[k]));
  return typeof json['name'] === 'string' && typeof json['version'] === 'string';
}

/** The names npm's tools write; a file so named is npm's whatever its content. */
export const NPM_FILE_NAMES: ReadonlySet<string> = new Set([
  'package.json',
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'pnpm-workspace.yaml',
  'bun.lock',
  'bun.lockb',
]);

export type Classified = DetectedFile | { readonly path: string; readonly unreadable: string; readonly line?: number; readonly column?: number } | null;

/** What one file is to npm: a manifest or lockfile, a named one it cannot read, or nothing. */
export function classifyNpmFile(file: InputFile): Classified {
  const name = basename(file.path);
  const text = file.content.replace(/^\uFEFF/, '');
  const start = text.trimStart().charAt(0);
  if (name === 'bun.lockb') {
    return { path: file.path, unreadable: 'the binary bun.lockb is not readable; upload the text bun.lock (bun 1.2+)' };
  }
  let where: { line?: number; column?: number } = {};
  if (start === '{') {
    const json = attempt(
      () => parseJsonStrict(file.path, text),
      (error) => (where = positionOfFailure(error)),
    );
    if (isPackageLock(json)) return { path: file.path, kind: 'npm-lock', data: json };
    if (isObject(json) && (name === 'package.json' || looksLikeManifest(json))) return { path: file.path, kind: 'package-json', data: json };
    const jsonc = json === undefined ? attempt(() => parseJsonc(file.path, text)) : json;
    if (isObject(jsonc) && isBunLock(jsonc)) return { path: file.path, kind: 'bun-lock', data: jsonc };
  } else if (isYarnLock(text)) {
    return { path: file.path, kind: 'yarn-lock', content: text };
  } else if (isPnpmLock(text)) {
    return { path: file.path, kind: 'pnpm-lock', content: text };
  } else if (name === 'pnpm-workspace.yaml') {
    const packages = workspacePackages(file.path, text);
    if (packages !== null) return { path: file.path, kind: 'pnpm-workspace', packages };
  }
  return NPM_FILE_NAMES.has(name) ? { path: file.path, unreadable: `not a readable ${name}`, ...where } : null;
}

/** Recognises manifests and lockfiles by name and by content; anything else is skipped. */
export function detect(files: readonly InputFile[]): Detection {
  const detected: DetectedFile[] = [];
  const unreadable: Detection['unreadable'] = [];
  for (const file of files) {
    const classified = classifyNpmFile(file);
    if (classified === null) continue;
    if ('unreadable' in classified) {
      const { path, unreadable: reason, line, column } = classified;
      unreadable.push({ path, reason, ...(line === undefined ? {} : { line }), ...(column === undefined ? {} : { column }) });
    }
    else detected.push(classified);
  }
  return { files: detected, unreadable };
}

function workspacePackages(path: string, text: string): string[] | null {
  const doc = attempt(() => parseYaml(path, text));
  if (doc === undefined) return null;
  if (!isObject(doc)) return [];
  const packages = doc['packages'];
  return Array.isArray(packages) ? packages.filter((p): p is string => typeof p === 'string') : [];
}

const KIND_BY_NAME: Readonly<Record<string, string>> = {
  'package.json': 'package-json',
  'package-lock.json': 'npm-lock',
  'npm-shrinkwrap.json': 'npm-lock',
  'yarn.lock': 'yarn-lock',
  'pnpm-lock.yaml': 'pnpm-lock',
  'pnpm-workspace.yaml': 'pnpm-workspace',
  'bun.lock': 'bun-lock',
  'bun.lockb': 'bun-lock',
};

/** npm's files by their names; renamed ones (an upload's `frontend-lock.json`) by their content. */
export function claimNpm(file: InputFile): Claim | null {
  const name = basename(file.path);
  const byName = KIND_BY_NAME[name];
  if (NPM_FILE_NAMES.has(name) && byName !== undefined) {
    return { kind: byName, role: byName === 'package-json' ? 'manifest' : byName === 'pnpm-workspace' ? 'auxiliary' : 'lockfile', by: 'name' };
  }
  const classified = classifyNpmFile(file);
  if (classified === null || 'unreadable' in classified) return null;
  return { kind: classified.kind, role: classified.kind === 'package-json' ? 'manifest' : 'lockfile', by: 'content' };
}
