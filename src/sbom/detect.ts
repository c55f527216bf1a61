import { basename } from './parsers/common.js';
import type { InputFile } from './types.js';

export type DetectedKind = 'package-json' | 'npm-lock';

export interface DetectedFile {
  readonly path: string;
  readonly kind: DetectedKind;
  /** The parsed document (JSON formats). */
  readonly data: unknown;
}

function parseJson(content: string): unknown {
  try {
    return JSON.parse(content.replace(/^\uFEFF/, '')) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Recognises manifests and lockfiles by name and by content; unrecognised files are skipped. */
export function detect(files: readonly InputFile[]): DetectedFile[] {
  const detected: DetectedFile[] = [];
  for (const file of files) {
    const name = basename(file.path);
    const json = name.endsWith('.json') || file.content.trimStart().startsWith('{') ? parseJson(file.content) : undefined;
    if (isObject(json) && typeof json['lockfileVersion'] === 'number' && (isObject(json['packages']) || isObject(json['dependencies']))) {
      detected.push({ path: file.path, kind: 'npm-lock', data: json });
    } else if (isObject(json) && (name === 'package.json' || looksLikeManifest(json))) {
      detected.push({ path: file.path, kind: 'package-json', data: json });
    }
  }
  return detected;
}

function looksLikeManifest(json: Record<string, unknown>): boolean {
  return (
    (typeof json['name'] === 'string' && typeof json['version'] === 'string') ||
    ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'].some((k) => isObject(json[k]))
  );
}
