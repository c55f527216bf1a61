import { hexIntegrity } from '../shared/builder.js';
import { nonEmpty as str } from '../shared/narrow.js';

/** Readers of parsed TOML/JSON values that never throw: a wrong shape reads as absent. */

export { str };

export function arr(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function obj(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function strings(value: unknown): string[] {
  return arr(value).filter((v): v is string => typeof v === 'string');
}

/** `sha256:<hex>` (the form every Python lockfile writes) as an SRI string. */
export function sha256Integrity(hash: unknown): string | null {
  const text = str(hash);
  const match = text === null ? null : /^sha256[:=]([0-9a-fA-F]{64})$/.exec(text);
  return match?.[1] ? hexIntegrity('sha256', match[1]) : null;
}

/** The upload folder of a path ('' at the top). */
export function folderOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}
