import { AnalysisError } from '../../model/types.js';
import { parseJson, syntaxError } from '../../model/safe-parse.js';
import { record, text } from '../shared/narrow.js';

/**
 * `Package.resolved`, the pins SwiftPM resolved: version 1 (`{object: {pins: [{package,
 * repositoryURL, state}]}}`) and versions 2 and 3 (`{pins: [{identity, kind, location, state}],
 * originHash}`). A pin's state has a `version` (a tag), a `revision` (the commit) and, for a pin
 * that follows a branch, the `branch`. The file records no dependency edges and no scopes.
 */

export interface SwiftPin {
  /** SwiftPM's identity: the last path component of the location, lower-cased, `.git` dropped (`scope.name` for a registry). */
  readonly identity: string;
  readonly kind: 'remoteSourceControl' | 'localSourceControl' | 'registry';
  /** Repository URL, local path or (registry) null. */
  readonly location: string | null;
  readonly version: string | null;
  readonly revision: string | null;
  readonly branch: string | null;
}

export interface SwiftResolved {
  readonly version: number;
  readonly pins: readonly SwiftPin[];
}

/** SwiftPM's identity of a package location: its last path component, lower-cased, without `.git`. */
export function identityOf(location: string): string {
  const last = location.replace(/[/\\]+$/, '').split(/[/\\:]/).pop() ?? location;
  return last.replace(/\.git$/i, '').toLowerCase();
}

export function parseResolved(path: string, content: string): SwiftResolved {
  const root = record(parseJson(path, content));
  if (root === null) throw syntaxError(path, 'not a JSON object');
  const declared = root['version'];
  // No `version` is the first format; 0, a fraction or text is no format SwiftPM writes.
  if (declared !== undefined && (typeof declared !== 'number' || !Number.isInteger(declared) || declared < 1)) throw new AnalysisError('resolution_failed', `${path}: no Package.resolved format`, { problems: [{ path, reason: 'unsupported_version', message: 'version is not a Package.resolved format number' }] });
  const version = typeof declared === 'number' ? declared : 1;
  const rawPins = version === 1 ? record(root['object'])?.['pins'] : root['pins'];
  if (!Array.isArray(rawPins)) throw syntaxError(path, version === 1 ? 'object.pins is not a list' : 'pins is not a list');
  const pins: SwiftPin[] = [];
  for (const raw of rawPins) {
    const pin = record(raw);
    if (pin === null) continue;
    const state = record(pin['state']) ?? {};
    const location = text(pin['location']) ?? text(pin['repositoryURL']);
    const kindText = text(pin['kind']);
    const kind = kindText === 'localSourceControl' || kindText === 'registry' ? kindText : 'remoteSourceControl';
    const identity = text(pin['identity']) ?? (location === null ? text(pin['package'])?.toLowerCase() : identityOf(location)) ?? null;
    if (identity === null) continue;
    pins.push({ identity, kind, location, version: text(state['version']), revision: text(state['revision']), branch: text(state['branch']) });
  }
  return { version, pins };
}
