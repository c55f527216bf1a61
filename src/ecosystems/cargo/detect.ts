import type { InputFile } from '../../model/types.js';
import type { Claim } from '../types.js';

/**
 * Cargo's file names are its own (no other ecosystem writes a `Cargo.lock` or `Cargo.toml`), and
 * Cargo reads them case-sensitively, so the name decides. The content only has to be text that is
 * not another format's (a JSON document under that name is not claimed); a recognised file that
 * does not parse is claimed, and the build reports it.
 */
export function claimCargo(file: InputFile): Claim | null {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  if (name !== 'Cargo.lock' && name !== 'Cargo.toml') return null;
  const start = /\S/.exec(file.content.slice(0, 1024))?.[0];
  if (start === '{') return null;
  return name === 'Cargo.lock' ? { kind: 'cargo-lock', role: 'lockfile', by: 'name' } : { kind: 'cargo-toml', role: 'manifest', by: 'name' };
}
