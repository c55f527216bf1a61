import { parseYaml, syntaxError } from '../../model/safe-parse.js';
import { record } from '../shared/narrow.js';

/**
 * pub's two files. `pubspec.lock`: `packages` maps each package to its `dependency` (`direct
 * main`, `direct dev`, `direct overridden` or `transitive`), `source` (`hosted`, `git`, `path`,
 * `sdk`), `version` and `description` (hosted: name, sha256, url; git: url, ref, resolved-ref,
 * path; path: path, relative; sdk: the SDK's name); `sdks` the SDK constraints. `pubspec.yaml`:
 * name, version, dependencies, dev_dependencies, dependency_overrides, and for a pub workspace
 * the root's `workspace` list and each member's `resolution: workspace`.
 */

export interface LockedPackage {
  readonly name: string;
  readonly dependency: string;
  readonly source: string;
  readonly version: string | null;
  readonly description: Readonly<Record<string, string>>;
  /** An SDK package: the SDK's name. */
  readonly sdk: string | null;
}

export interface Pubspec {
  readonly name: string | null;
  readonly version: string | null;
  /** Requirement text per dependency (a version constraint, or `git: url`, `path: x`, `sdk: flutter`). */
  readonly dependencies: ReadonlyMap<string, string>;
  readonly devDependencies: ReadonlyMap<string, string>;
  readonly overrides: ReadonlyMap<string, string>;
  readonly workspace: readonly string[];
  readonly inWorkspace: boolean;
}

function scalar(value: unknown): string | null {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
}

export function parsePubspecLock(path: string, content: string): { packages: LockedPackage[]; sdks: Record<string, string> } {
  const doc = record(parseYaml(path, content));
  const packages = record(doc?.['packages']);
  if (doc === null || (packages === null && doc['packages'] !== undefined)) throw syntaxError(path, 'packages is not a map');
  const out: LockedPackage[] = [];
  for (const [name, raw] of Object.entries(packages ?? {})) {
    const p = record(raw);
    if (p === null) continue;
    const description: Record<string, string> = {};
    const d = p['description'];
    for (const [k, v] of Object.entries(record(d) ?? {})) {
      const s = scalar(v);
      if (s !== null) description[k] = s;
    }
    const source = scalar(p['source']) ?? 'hosted';
    out.push({ name, dependency: scalar(p['dependency']) ?? 'transitive', source, version: scalar(p['version']), description, sdk: source === 'sdk' ? (scalar(d) ?? name) : null });
  }
  const sdks: Record<string, string> = {};
  for (const [k, v] of Object.entries(record(doc['sdks']) ?? {})) {
    const s = scalar(v);
    if (s !== null) sdks[k] = s;
  }
  return { packages: out, sdks };
}

function requirements(value: unknown): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, spec] of Object.entries(record(value) ?? {})) {
    const text = scalar(spec);
    if (text !== null || spec === null) {
      out.set(name, text ?? 'any');
      continue;
    }
    const r = record(spec) ?? {};
    const git = r['git'];
    const parts = [
      scalar(r['version']),
      r['sdk'] === undefined ? null : `sdk: ${scalar(r['sdk']) ?? ''}`,
      r['path'] === undefined ? null : `path: ${scalar(r['path']) ?? ''}`,
      git === undefined ? null : `git: ${scalar(git) ?? scalar(record(git)?.['url']) ?? ''}`,
      r['hosted'] === undefined ? null : `hosted: ${scalar(r['hosted']) ?? scalar(record(r['hosted'])?.['url']) ?? ''}`,
    ].filter((x): x is string => x !== null);
    out.set(name, parts.join(', '));
  }
  return out;
}

export function parsePubspec(path: string, content: string): Pubspec {
  const doc = record(parseYaml(path, content)) ?? {};
  return {
    name: scalar(doc['name']),
    version: scalar(doc['version']),
    dependencies: requirements(doc['dependencies']),
    devDependencies: requirements(doc['dev_dependencies']),
    overrides: requirements(doc['dependency_overrides']),
    workspace: Array.isArray(doc['workspace']) ? doc['workspace'].filter((w): w is string => typeof w === 'string') : [],
    inWorkspace: doc['resolution'] === 'workspace',
  };
}
