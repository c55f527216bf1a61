import { isBunLock } from './parsers/bun-lock.js';
import { basename, isObject } from './parsers/common.js';
import { isPackageLock, type PackageLock } from './parsers/npm-lock.js';
import { isPnpmLock } from './parsers/pnpm-lock.js';
import { isYarnLock } from './parsers/yarn-lock.js';
import { parseJson as parseJsonStrict, parseJsonc, parseYaml } from './safe-parse.js';
import { LimitExceededError, type InputFile } from './types.js';

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
  readonly unreadable: { readonly path: string; readonly reason: string }[];
}

/** Parsed data, or undefined when the text is not valid; a file over a limit fails the analysis. */
function attempt(parse: () => unknown): unknown {
  try {
    return parse();
  } catch (error) {
    if (error instanceof LimitExceededError) throw error;
    return undefined;
  }
}

const MANIFEST_KEYS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];

function looksLikeManifest(json: Record<string, unknown>): boolean {
  return (typeof json['name'] === 'string' && typeof json['version'] === 'string') || MANIFEST_KEYS.some((k) => isObject(json[k]));
}

const KNOWN_NAMES: Readonly<Record<string, string>> = {
  'package.json': 'package.json',
  'package-lock.json': 'package-lock.json',
  'npm-shrinkwrap.json': 'npm-shrinkwrap.json',
  'yarn.lock': 'yarn.lock',
  'pnpm-lock.yaml': 'pnpm-lock.yaml',
  'pnpm-workspace.yaml': 'pnpm-workspace.yaml',
  'bun.lock': 'bun.lock',
  'bun.lockb': 'bun.lockb',
};

/** Recognises manifests and lockfiles by name and by content; anything else is skipped. */
export function detect(files: readonly InputFile[]): Detection {
  const detected: DetectedFile[] = [];
  const unreadable: Detection['unreadable'] = [];
  for (const file of files) {
    const name = basename(file.path);
    const text = file.content.replace(/^\uFEFF/, '');
    const start = text.trimStart().charAt(0);
    if (name === 'bun.lockb') {
      unreadable.push({ path: file.path, reason: 'the binary bun.lockb is not readable; upload the text bun.lock (bun 1.2+)' });
      continue;
    }
    if (start === '{') {
      const json = attempt(() => parseJsonStrict(file.path, text));
      if (isPackageLock(json)) {
        detected.push({ path: file.path, kind: 'npm-lock', data: json });
        continue;
      }
      if (isObject(json) && (name === 'package.json' || looksLikeManifest(json))) {
        detected.push({ path: file.path, kind: 'package-json', data: json });
        continue;
      }
      const jsonc = json === undefined ? attempt(() => parseJsonc(file.path, text)) : json;
      if (isObject(jsonc) && isBunLock(jsonc)) {
        detected.push({ path: file.path, kind: 'bun-lock', data: jsonc });
        continue;
      }
    } else if (isYarnLock(text)) {
      detected.push({ path: file.path, kind: 'yarn-lock', content: text });
      continue;
    } else if (isPnpmLock(text)) {
      detected.push({ path: file.path, kind: 'pnpm-lock', content: text });
      continue;
    } else if (name === 'pnpm-workspace.yaml') {
      const packages = workspacePackages(file.path, text);
      if (packages !== null) {
        detected.push({ path: file.path, kind: 'pnpm-workspace', packages });
        continue;
      }
    }
    if (KNOWN_NAMES[name] !== undefined) unreadable.push({ path: file.path, reason: `not a readable ${name}` });
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
