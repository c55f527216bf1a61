import type { InputFile } from '../../model/types.js';
import type { Claim } from '../types.js';

/** `Package.resolved` (JSON) and `Package.swift` (with its `Package@swift-5.9.swift` variants): SwiftPM's own names. */
export function claimSwift(file: InputFile): Claim | null {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  if (name === 'Package.resolved') return { kind: 'package-resolved', role: 'lockfile', by: 'name' };
  if (/^Package(@swift-[\d.]+)?\.swift$/.test(name)) return { kind: 'package-swift', role: 'manifest', by: 'name' };
  return null;
}
