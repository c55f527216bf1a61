import type { Declaration, EdgeKind } from '../../model/model.js';
import { isRecord as isObject } from '../shared/narrow.js';

/** A package.json, reduced to what the analysis reads. */
export interface Manifest {
  readonly path: string;
  readonly name: string | null;
  readonly version: string | null;
  readonly license: string | null;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
  readonly optionalDependencies: Readonly<Record<string, string>>;
  readonly peerDependencies: Readonly<Record<string, string>>;
  readonly workspaces: readonly string[];
  readonly raw: Readonly<Record<string, unknown>>;
}

function stringMap(value: unknown): Record<string, string> {
  if (!isObject(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function licenseOf(raw: Record<string, unknown>): string | null {
  const license = raw['license'];
  if (typeof license === 'string') return license;
  if (isObject(license) && typeof license['type'] === 'string') return license['type'];
  const legacy = raw['licenses'];
  if (Array.isArray(legacy)) {
    const types = legacy.map((l) => (isObject(l) && typeof l['type'] === 'string' ? l['type'] : null)).filter((t) => t !== null);
    if (types.length > 0) return types.length === 1 ? (types[0] ?? null) : `(${types.join(' OR ')})`;
  }
  return null;
}

export function readManifest(path: string, data: unknown): Manifest {
  const raw = isObject(data) ? data : {};
  const ws = raw['workspaces'];
  const workspaces = Array.isArray(ws) ? ws : isObject(ws) && Array.isArray(ws['packages']) ? ws['packages'] : [];
  return {
    path,
    name: typeof raw['name'] === 'string' ? raw['name'] : null,
    version: typeof raw['version'] === 'string' ? raw['version'] : null,
    license: licenseOf(raw),
    dependencies: stringMap(raw['dependencies']),
    devDependencies: stringMap(raw['devDependencies']),
    optionalDependencies: stringMap(raw['optionalDependencies']),
    peerDependencies: stringMap(raw['peerDependencies']),
    workspaces: workspaces.filter((w): w is string => typeof w === 'string'),
    raw,
  };
}

export type DependencyField = 'dependencies' | 'devDependencies' | 'optionalDependencies' | 'peerDependencies';

export interface DeclaredDependency {
  readonly name: string;
  readonly range: string;
  readonly kind: EdgeKind;
  readonly field: DependencyField;
}

/**
 * What a project manifest asks to install. An optional dependency also listed under
 * `dependencies` counts once, as optional (npm's rule); peers are installed for projects too.
 */
export function declaredDependencies(manifest: Manifest): DeclaredDependency[] {
  const result = new Map<string, DeclaredDependency>();
  const add = (field: DependencyField, kind: EdgeKind): void => {
    for (const [name, range] of Object.entries(manifest[field])) {
      if (!result.has(name)) result.set(name, { name, range, kind, field });
    }
  };
  add('optionalDependencies', 'optional');
  add('dependencies', 'prod');
  add('devDependencies', 'dev');
  add('peerDependencies', 'peer');
  return [...result.values()];
}

export function declarationsOf(manifest: Manifest): Declaration[] {
  return declaredDependencies(manifest).map((d) => ({ manifest: manifest.path, name: d.name, range: d.range, kind: d.field }));
}
