import type { InputFile } from '../../model/types.js';
import type { Claim } from '../types.js';

/** `mix.lock`, `mix.exs` and `rebar.lock`: Mix's and rebar3's own names. */
export function claimHex(file: InputFile): Claim | null {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  if (name === 'mix.lock') return { kind: 'mix-lock', role: 'lockfile', by: 'name' };
  if (name === 'rebar.lock') return { kind: 'rebar-lock', role: 'lockfile', by: 'name' };
  if (name === 'mix.exs') return { kind: 'mix-exs', role: 'manifest', by: 'name' };
  return null;
}
