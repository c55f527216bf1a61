import { AnalysisError } from '../../model/types.js';

/**
 * What every lockfile reader says of a format version it does not know. Newer than the newest it
 * reads: where the format's own tool reads newer files the same way (npm, Cargo, NuGet, SwiftPM,
 * Pipenv, a newer Poetry minor), a notice, and the file is read as the newest known; where the
 * format declares a newer version incompatible (uv's `version`, Poetry's major), a diagnostic and
 * the file is not read. A version the format never had (0, a fraction, text) is a diagnostic.
 */

export function newerFormatNotice(path: string, kind: string, declared: string | number, readAs: string): string {
  return `${path}: ${kind} format version ${declared} is newer than this reader knows; it was read as version ${readAs}`;
}

export function unsupportedFormat(path: string, kind: string, declared: unknown): AnalysisError {
  const shown = typeof declared === 'string' || typeof declared === 'number' ? String(declared) : declared === undefined ? 'missing' : JSON.stringify(declared);
  const message = `${kind} format version ${shown} is not one this reader can read`;
  return new AnalysisError('resolution_failed', `${path}: ${message}`, { problems: [{ path, reason: 'unsupported_version', message }] });
}
