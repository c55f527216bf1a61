import type { InputFile } from '../../model/types.js';
import type { Claim } from '../types.js';

/** `pubspec.lock` and `pubspec.yaml`: pub's own names. */
export function claimPub(file: InputFile): Claim | null {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  if (name === 'pubspec.lock') return { kind: 'pubspec-lock', role: 'lockfile', by: 'name' };
  if (name === 'pubspec.yaml') return { kind: 'pubspec-yaml', role: 'manifest', by: 'name' };
  return null;
}
