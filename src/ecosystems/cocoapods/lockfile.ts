import { parseYaml, syntaxError } from '../../model/safe-parse.js';
import { record } from '../shared/narrow.js';

/**
 * `Podfile.lock` (YAML): PODS lists every resolved pod and subspec as `Name (version)` (with its
 * own dependencies as `Dep (constraint)` under it), DEPENDENCIES what the Podfile asked for, SPEC
 * REPOS which spec repository served each pod, EXTERNAL SOURCES pods taken from a path, a git
 * repository or a podspec file, CHECKOUT OPTIONS the commit such a git pod was checked out at, and
 * SPEC CHECKSUMS the SHA-1 of each pod's podspec.
 */

export interface LockedPod {
  /** As PODS writes it: `Firebase/Analytics` for a subspec. */
  readonly name: string;
  readonly version: string;
  /** Names (with subspec) it depends on, and the constraints written. */
  readonly dependencies: readonly { readonly name: string; readonly constraint: string | null }[];
}

export interface ExternalSource {
  readonly path?: string;
  readonly podspec?: string;
  readonly git?: string;
  readonly branch?: string;
  readonly tag?: string;
  readonly commit?: string;
}

export interface PodfileLock {
  readonly pods: readonly LockedPod[];
  readonly dependencies: readonly { readonly name: string; readonly constraint: string | null }[];
  /** Pod (base name) → spec repository. */
  readonly specRepos: ReadonlyMap<string, string>;
  /** Pod (base name) → where it was taken from. */
  readonly external: ReadonlyMap<string, ExternalSource>;
  /** Pod (base name) → the commit CocoaPods checked out. */
  readonly checkout: ReadonlyMap<string, ExternalSource>;
  readonly checksums: ReadonlyMap<string, string>;
  readonly cocoapods: string | null;
}

const ITEM = /^(\S(?:.*\S)?)\s+\((.*)\)$/;

/** `Name (constraint)` or `Name`. */
export function splitItem(item: string): { name: string; constraint: string | null } {
  const m = ITEM.exec(item.trim());
  return m === null ? { name: item.trim(), constraint: null } : { name: m[1] ?? '', constraint: m[2] ?? null };
}

/** The pod a name belongs to: `Firebase` of `Firebase/Analytics`. */
export function baseOf(name: string): string {
  const slash = name.indexOf('/');
  return slash === -1 ? name : name.slice(0, slash);
}

function source(value: unknown): ExternalSource {
  const r = record(value) ?? {};
  const out: Record<string, string> = {};
  for (const key of ['path', 'podspec', 'git', 'branch', 'tag', 'commit']) {
    const v = r[`:${key}`] ?? r[key];
    if (typeof v === 'string' || typeof v === 'number') out[key] = String(v);
  }
  return out;
}

function items(value: unknown): { name: string; constraint: string | null }[] {
  return Array.isArray(value) ? value.flatMap((v) => (typeof v === 'string' ? [splitItem(v)] : [])) : [];
}

export function parsePodfileLock(path: string, content: string): PodfileLock {
  const doc = record(parseYaml(path, content));
  if (doc === null || !Array.isArray(doc['PODS'])) throw syntaxError(path, 'PODS is missing or not a list');
  const pods: LockedPod[] = [];
  for (const raw of doc['PODS'] as unknown[]) {
    // `- Name (1.0)` or `- Name (1.0):` with its dependencies as the one key's list.
    const entry = typeof raw === 'string' ? raw : Object.keys(record(raw) ?? {})[0];
    if (entry === undefined) continue;
    const { name, constraint } = splitItem(entry);
    if (constraint === null) continue;
    pods.push({ name, version: constraint, dependencies: typeof raw === 'string' ? [] : items(record(raw)?.[entry]) });
  }
  const specRepos = new Map<string, string>();
  for (const [repo, list] of Object.entries(record(doc['SPEC REPOS']) ?? {})) for (const { name } of items(list)) specRepos.set(name, repo);
  const mapOf = (key: string): Map<string, ExternalSource> => new Map(Object.entries(record(doc[key]) ?? {}).map(([k, v]) => [k, source(v)]));
  const checksums = new Map<string, string>();
  for (const [k, v] of Object.entries(record(doc['SPEC CHECKSUMS']) ?? {})) if (typeof v === 'string') checksums.set(k, v);
  const cocoapods = doc['COCOAPODS'];
  return {
    pods,
    dependencies: items(doc['DEPENDENCIES']),
    specRepos,
    external: mapOf('EXTERNAL SOURCES'),
    checkout: mapOf('CHECKOUT OPTIONS'),
    checksums,
    cocoapods: typeof cocoapods === 'string' || typeof cocoapods === 'number' ? String(cocoapods) : null,
  };
}
