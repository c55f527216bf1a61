import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { InputFile } from '../../src/model/types.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function fixture(path: string): string {
  return readFileSync(`${FIXTURES}${path}`, 'utf8');
}

/** Files of a fixture folder as an upload, under the given upload paths. */
export function upload(folder: string, names: readonly string[]): InputFile[] {
  return names.map((name) => ({ path: name, content: fixture(`${folder}/${name}`) }));
}

export const SMALL_NPM = (): InputFile[] => upload('lockfiles/small/npm3', ['package.json', 'package-lock.json']);
