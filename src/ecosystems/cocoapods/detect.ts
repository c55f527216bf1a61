import type { InputFile } from '../../model/types.js';
import type { Claim } from '../types.js';

/** `Podfile.lock` and `Podfile`: CocoaPods' own names (no other tool writes them). */
export function claimCocoapods(file: InputFile): Claim | null {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  if (name === 'Podfile.lock') return { kind: 'podfile-lock', role: 'lockfile', by: 'name' };
  if (name === 'Podfile') return { kind: 'podfile', role: 'manifest', by: 'name' };
  return null;
}
