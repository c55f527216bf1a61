import type { DetectedFile } from './detect.js';
import { emptyInventory, type Declaration, type Inventory, type Occurrence } from './model.js';
import { dirname, joinPath, lockfileRef, type ParsedLockfile } from './parsers/common.js';
import { parseNpmLock } from './parsers/npm-lock.js';

export interface Manifest {
  readonly path: string;
  readonly name: string | null;
  readonly version: string | null;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
  readonly optionalDependencies: Readonly<Record<string, string>>;
  readonly peerDependencies: Readonly<Record<string, string>>;
  readonly workspaces: readonly string[];
  readonly raw: Readonly<Record<string, unknown>>;
}

function stringMap(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export function readManifest(path: string, data: unknown): Manifest {
  const raw = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const ws = raw['workspaces'];
  const workspaces = Array.isArray(ws)
    ? ws
    : typeof ws === 'object' && ws !== null && Array.isArray((ws as { packages?: unknown }).packages)
      ? (ws as { packages: unknown[] }).packages
      : [];
  return {
    path,
    name: typeof raw['name'] === 'string' ? raw['name'] : null,
    version: typeof raw['version'] === 'string' ? raw['version'] : null,
    dependencies: stringMap(raw['dependencies']),
    devDependencies: stringMap(raw['devDependencies']),
    optionalDependencies: stringMap(raw['optionalDependencies']),
    peerDependencies: stringMap(raw['peerDependencies']),
    workspaces: workspaces.filter((w): w is string => typeof w === 'string'),
    raw,
  };
}

export function declarationsOf(manifest: Manifest): Declaration[] {
  const kinds = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;
  return kinds.flatMap((kind) =>
    Object.entries(manifest[kind]).map(([name, range]) => ({ manifest: manifest.path, name, range, kind })),
  );
}

/** Resolves a manifest no lockfile covers; supplied by the caller (the registry lives outside). */
export type ManifestResolver = (manifest: Manifest) => Promise<ParsedLockfile>;

/**
 * Parses every lockfile, associates each manifest with the lockfile covering it (same folder,
 * or a workspace member under a root lockfile) and resolves the manifests left over.
 */
export async function buildInventory(
  detected: readonly DetectedFile[],
  resolveStandalone: (manifest: Manifest) => Promise<ParsedLockfile | { failed: Inventory['resolutions'][number] }>,
  onManifestDone: () => void,
): Promise<Inventory> {
  const inventory = emptyInventory();
  const manifests = detected.filter((d) => d.kind === 'package-json').map((d) => readManifest(d.path, d.data));
  const covered = new Set<string>();

  for (const file of detected) {
    if (file.kind !== 'npm-lock') continue;
    const parsed = parseNpmLock(file.path, file.data as Parameters<typeof parseNpmLock>[1]);
    const dir = dirname(file.path);
    const byPath = new Map(parsed.occurrences.map((o) => [o.installPath, o]));
    for (const manifest of manifests) {
      const mdir = dirname(manifest.path);
      const inside = dir === '' || mdir === dir || mdir.startsWith(`${dir}/`);
      if (!inside || covered.has(manifest.path)) continue;
      const key = dir === '' ? mdir : mdir.slice(dir.length + 1).replace(/^\//, '');
      const occurrence = byPath.get(key);
      const isRoot = key === '';
      if (!isRoot && (occurrence === undefined || occurrence.source !== 'workspace')) continue;
      covered.add(manifest.path);
      inventory.associations.push({ manifest: manifest.path, lockfile: file.path, role: isRoot ? 'root' : 'workspace' });
      inventory.resolutions.push({ manifest: manifest.path, outcome: 'lockfile', detail: null });
      if (isRoot && parsed.record.version === '1') refineV1Root(parsed, manifest, file.path);
      onManifestDone();
    }
    addParsed(inventory, parsed);
  }

  for (const manifest of manifests) {
    if (covered.has(manifest.path)) continue;
    inventory.associations.push({ manifest: manifest.path, lockfile: null, role: 'standalone' });
    const outcome = await resolveStandalone(manifest);
    if ('failed' in outcome) {
      inventory.resolutions.push(outcome.failed);
      inventory.declarations.push(...declarationsOf(manifest));
    } else {
      inventory.resolutions.push({ manifest: manifest.path, outcome: 'resolved', detail: null });
      addParsed(inventory, outcome);
    }
    onManifestDone();
  }
  return inventory;
}

function addParsed(inventory: Inventory, parsed: ParsedLockfile): void {
  inventory.occurrences.push(...parsed.occurrences);
  inventory.roots.push(...parsed.roots);
  inventory.notices.push(...parsed.notices);
  inventory.lockfiles.push(parsed.record);
}

/** lockfileVersion 1 lacks the root's requirements; the manifest beside it supplies them. */
function refineV1Root(parsed: ParsedLockfile, manifest: Manifest, lockfile: string): void {
  const index = parsed.occurrences.findIndex((o) => o.ref === lockfileRef(lockfile, ''));
  const found = parsed.occurrences[index];
  if (!found) return;
  const root: Occurrence = { ...found, name: manifest.name ?? found.name, version: manifest.version ?? found.version };
  parsed.occurrences[index] = root;
  const byPath = new Map<string, Occurrence>(parsed.occurrences.map((o) => [o.installPath, o]));
  const names = new Set([
    ...Object.keys(manifest.dependencies),
    ...Object.keys(manifest.devDependencies),
    ...Object.keys(manifest.optionalDependencies),
  ]);
  root.dependencies = [...names]
    .map((n) => byPath.get(joinPath('', `node_modules/${n}`))?.ref)
    .filter((r): r is string => r !== undefined);
}
