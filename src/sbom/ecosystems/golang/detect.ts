import type { Claim } from '../types.js';
import type { InputFile } from '../../types.js';

/**
 * Go's files have names no other ecosystem uses, so the name decides; the content is read by
 * `build`, which reports a malformed file as a problem (a claimed file is never guessed away).
 * go.mod records the build list (Go ≥ 1.17 lists every module providing a package): the lockfile.
 * go.sum, go.work and go.work.sum are read only beside go.mod files: a go.work alone names
 * directories, not modules.
 */
const CLAIMS: Readonly<Record<string, Claim>> = {
  'go.mod': { kind: 'go-mod', role: 'lockfile' },
  'go.sum': { kind: 'go-sum', role: 'auxiliary' },
  'go.work': { kind: 'go-work', role: 'auxiliary' },
  'go.work.sum': { kind: 'go-sum', role: 'auxiliary' },
};

export function claimGoFile(file: InputFile): Claim | null {
  const base = file.path.slice(file.path.lastIndexOf('/') + 1);
  return Object.hasOwn(CLAIMS, base) ? (CLAIMS[base] ?? null) : null;
}
