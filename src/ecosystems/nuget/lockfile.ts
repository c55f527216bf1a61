import { AnalysisError } from '../../model/types.js';
import { parseJson, syntaxError } from '../../model/safe-parse.js';
import { record, text } from '../shared/narrow.js';

/**
 * `packages.lock.json` (NuGet's lock, version 1 and 2): per target framework (and per
 * `framework/runtime-identifier`), each package with its `type` (`Direct`, `Transitive`,
 * `CentralTransitive`, `Project`), `requested` range, `resolved` version, `contentHash` (base64
 * SHA-512) and `dependencies` (name → range).
 */

export interface LockedNuget {
  readonly framework: string;
  readonly name: string;
  readonly type: 'Direct' | 'Transitive' | 'CentralTransitive' | 'Project';
  readonly requested: string | null;
  readonly resolved: string | null;
  readonly contentHash: string | null;
  readonly dependencies: Readonly<Record<string, string>>;
}

export function parseNugetLock(path: string, content: string): { version: number | null; entries: LockedNuget[] } {
  const doc = record(parseJson(path, content));
  const frameworks = record(doc?.['dependencies']);
  if (doc === null || frameworks === null) throw syntaxError(path, 'dependencies is missing or not an object');
  const entries: LockedNuget[] = [];
  for (const [framework, packages] of Object.entries(frameworks)) {
    for (const [name, raw] of Object.entries(record(packages) ?? {})) {
      const p = record(raw);
      if (p === null) continue;
      const type = text(p['type']);
      const deps: Record<string, string> = {};
      for (const [d, range] of Object.entries(record(p['dependencies']) ?? {})) if (typeof range === 'string') deps[d] = range;
      entries.push({
        framework,
        name,
        type: type === 'Direct' || type === 'CentralTransitive' || type === 'Project' ? type : 'Transitive',
        requested: text(p['requested']),
        resolved: text(p['resolved']),
        contentHash: text(p['contentHash']),
        dependencies: deps,
      });
    }
  }
  const version = doc['version'];
  if (version !== undefined && (typeof version !== 'number' || !Number.isInteger(version) || version < 1)) throw new AnalysisError('resolution_failed', `${path}: no packages.lock.json format`, { problems: [{ path, reason: 'unsupported_version', message: 'version is not a packages.lock.json format number' }] });
  return { version: typeof version === 'number' ? version : null, entries };
}

/** `*.deps.json`: `libraries` (`Name/version` → type package|project, sha512) and each target's dependencies. */
export function parseDepsJson(path: string, content: string): { libraries: { name: string; version: string; type: string; sha512: string | null }[]; dependencies: Map<string, Record<string, string>> } {
  const doc = record(parseJson(path, content));
  const libraries = record(doc?.['libraries']);
  if (doc === null || libraries === null) throw syntaxError(path, 'libraries is missing or not an object');
  const out: { name: string; version: string; type: string; sha512: string | null }[] = [];
  for (const [key, raw] of Object.entries(libraries)) {
    const slash = key.lastIndexOf('/');
    if (slash <= 0) continue;
    const lib = record(raw) ?? {};
    out.push({ name: key.slice(0, slash), version: key.slice(slash + 1), type: text(lib['type']) ?? 'package', sha512: text(lib['sha512']) });
  }
  const dependencies = new Map<string, Record<string, string>>();
  for (const target of Object.values(record(doc['targets']) ?? {})) {
    for (const [key, raw] of Object.entries(record(target) ?? {})) {
      const deps: Record<string, string> = {};
      for (const [d, v] of Object.entries(record(record(raw)?.['dependencies']) ?? {})) if (typeof v === 'string') deps[d] = v;
      dependencies.set(key, { ...(dependencies.get(key) ?? {}), ...deps });
    }
  }
  return { libraries: out, dependencies };
}
