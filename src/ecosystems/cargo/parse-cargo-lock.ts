import type { Declaration, EdgeKind, Inventory, Occurrence, OccurrenceSource } from '../../model/model.js';
import { GraphBuilder, hexIntegrity } from '../shared/builder.js';
import type { FileProblem } from '../types.js';
import { classifySource, sourceIdentity } from './source-id.js';
import { entries, list, own, readToml, table, text, type TomlDoc } from './toml.js';

/**
 * `Cargo.lock`, versions 1 to 4 (https://doc.rust-lang.org/cargo/guide/cargo-toml-vs-cargo-lock.html;
 * Cargo's `resolver/encode.rs`):
 * - v1 (no `version`): dependency strings always `"name version (source)"`, checksums in the
 *   `[metadata]` table under `"checksum name version (source)"`, very old files a `[root]` package;
 * - v2 (no `version`) and v3 (`version = 3`): checksums inline, dependency strings shortened to
 *   `"name"`, or `"name version"` / `"name version (source)"` when several packages share the name;
 * - v4 (`version = 4`): as v3, with the query of git source URLs percent-encoded.
 * Every `[[package]]` is one occurrence. Packages without `source` are workspace members (roots)
 * or path dependencies outside the workspace (`file`), as the caller's view of the manifests says.
 * `[[patch.unused]]` entries were not used by the build and are not components.
 */

/** More packages than any real lockfile holds (the largest public workspaces have a few thousand). */
export const MAX_LOCK_PACKAGES = 100_000;
/** More dependencies than one package plausibly has. */
const MAX_PACKAGE_DEPENDENCIES = 10_000;
const CHECKSUM_KEY = 'checksum ';

export interface LockContext {
  /** Whether a path package is a workspace member (a root) rather than a path dependency. */
  isMember(name: string, version: string): boolean;
  /** Name of the package whose manifest sits beside the lockfile (the project itself), if any. */
  readonly rootName: string | null;
  /**
   * Name of a virtual workspace (its root manifest has no `[package]`): the project the document
   * is about, a root of its own (at the top) with an edge to every member. Null otherwise.
   */
  readonly virtualRoot?: string | null;
  /** How a member's manifest declares each crate it depends on; null when its manifest was not uploaded. */
  memberKinds(name: string): ReadonlyMap<string, EdgeKind> | null;
  /** License a member's manifest declares, if any. */
  memberLicense(name: string): string | null;
  /** Uploaded manifests this lockfile covers. */
  readonly covered: readonly { readonly path: string; readonly role: 'root' | 'workspace' }[];
  /** The members' declared requirements: those naming no package of the lockfile stay declarations. */
  readonly declared: readonly Declaration[];
}

export type LockRead =
  | { readonly ok: true; readonly inventory: Inventory }
  | { readonly ok: false; readonly problem: FileProblem };

interface DependencyRef {
  readonly name: string;
  readonly version: string | null;
  readonly source: string | null;
}

/** `"name"`, `"name version"` or `"name version (source)"`; null when it has another shape. */
export function parseDependencyRef(value: string): DependencyRef | null {
  const parts = value.trim().split(/\s+/);
  const [name, version, source] = parts;
  if (name === undefined || name === '' || parts.length > 3) return null;
  if (source !== undefined && !(source.length > 2 && source.startsWith('(') && source.endsWith(')'))) return null;
  return { name, version: version ?? null, source: source === undefined ? null : source.slice(1, -1) };
}

/** Line of the `n`-th `[[package]]` header (1-based), for pointing at a bad entry. */
function packageLine(content: string, n: number): number | undefined {
  let seen = -1;
  let line = 1;
  let start = 0;
  for (let i = 0; i <= content.length; i++) {
    if (i < content.length && content.charCodeAt(i) !== 10) continue;
    if (content.slice(start, i).trim() === '[[package]]' && ++seen === n) return line;
    line++;
    start = i + 1;
  }
  return undefined;
}

interface Entry {
  readonly name: string;
  readonly version: string;
  readonly source: string | null;
  readonly checksum: string | null;
  readonly dependencies: readonly string[];
  readonly replace: string | null;
}

/** One `[[package]]` table in a known shape, or the reason it is not. */
function readEntry(value: unknown): Entry | string {
  const t = table(value);
  if (t === null) return 'is not a table';
  const name = text(own(t, 'name'));
  const version = text(own(t, 'version'));
  if (name === null || name.trim() === '') return 'has no name';
  if (version === null) return `${name} has no version`;
  const source = own(t, 'source');
  if (source !== undefined && typeof source !== 'string') return `${name} has a source that is not a string`;
  const deps = own(t, 'dependencies');
  if (deps !== undefined && !Array.isArray(deps)) return `${name} has dependencies that are not a list`;
  const dependencies = list(deps);
  if (dependencies.length > MAX_PACKAGE_DEPENDENCIES) return `${name} has more than ${MAX_PACKAGE_DEPENDENCIES} dependencies`;
  if (!dependencies.every((d) => typeof d === 'string')) return `${name} has a dependency that is not a string`;
  return {
    name,
    version,
    source: source ?? null,
    checksum: text(own(t, 'checksum')),
    dependencies: dependencies.filter((d): d is string => typeof d === 'string'),
    replace: text(own(t, 'replace')),
  };
}

/** v1 `[metadata]`: `"checksum name version (source)" = "<hex>"`, keyed by `name version identity`. */
function metadataChecksums(doc: TomlDoc): Map<string, string> {
  const checksums = new Map<string, string>();
  for (const [key, value] of entries(own(doc, 'metadata'))) {
    if (!key.startsWith(CHECKSUM_KEY) || typeof value !== 'string') continue;
    const ref = parseDependencyRef(key.slice(CHECKSUM_KEY.length));
    if (ref === null || ref.version === null) continue;
    checksums.set(`${ref.name} ${ref.version} ${ref.source === null ? '' : sourceIdentity(ref.source)}`, value);
  }
  return checksums;
}

function formatVersion(doc: TomlDoc, v1: boolean): { value: string; problem: string | null; notice: string | null } {
  const declared = own(doc, 'version');
  if (declared === undefined) return { value: v1 ? '1' : '2', problem: null, notice: null };
  if (typeof declared !== 'number' || !Number.isInteger(declared) || declared < 1) {
    return { value: '', problem: 'version is not a lockfile format number', notice: null };
  }
  // A newer format than v4 is read as v4 (Cargo's changes so far touched source encoding only).
  const notice = declared > 4 ? `Cargo.lock format version ${declared} is newer than this reader knows; it was read as version 4` : null;
  return { value: String(declared), problem: null, notice };
}

export function parseCargoLock(path: string, content: string, ctx: LockContext): LockRead {
  const read = readToml(path, content);
  if (!read.ok) return read;
  const { doc } = read;
  const fail = (message: string, line?: number): LockRead => ({
    ok: false,
    problem: line === undefined ? { path, reason: 'malformed', message } : { path, reason: 'malformed', message, line },
  });

  const rawPackages = own(doc, 'package');
  if (rawPackages !== undefined && !Array.isArray(rawPackages)) return fail('`package` is not an array of tables');
  const legacyRoot = own(doc, 'root');
  const raw = [...list(rawPackages), ...(legacyRoot === undefined ? [] : [legacyRoot])];
  if (raw.length > MAX_LOCK_PACKAGES) {
    return { ok: false, problem: { path, reason: 'limit_exceeded', message: `more than ${MAX_LOCK_PACKAGES} packages` } };
  }
  const checksums = metadataChecksums(doc);
  const version = formatVersion(doc, checksums.size > 0 || legacyRoot !== undefined);
  if (version.problem !== null) return fail(version.problem);
  // Cargo writes at least the workspace's own packages: no entries is no lockfile, never an empty inventory.
  if (raw.length === 0) return fail('no [[package]] entries: not a Cargo.lock');

  const parsed: Entry[] = [];
  for (const [i, value] of raw.entries()) {
    const entry = readEntry(value);
    if (typeof entry === 'string') return fail(`package ${entry}`, i < list(rawPackages).length ? packageLine(content, i) : undefined);
    parsed.push(entry);
  }

  const builder = new GraphBuilder(path, 'cargo');
  if (version.notice !== null) builder.notice(version.notice);
  const workspace = (ctx.virtualRoot ?? null) === null ? null : builder.root('', { name: ctx.virtualRoot ?? '', version: null, installPath: '' });
  const identity = new Map<Occurrence, string>();
  const added: [Entry, Occurrence][] = [];
  let rootsWithoutManifest = 0;
  for (const entry of parsed) {
    const kind = classifySource(entry.source);
    const idKey = entry.source === null ? '' : sourceIdentity(entry.source);
    let key = `${entry.name}@${entry.version}`;
    // The same name and version from two sources (crates.io and a git fork) stay two entries.
    if (builder.get(key) !== undefined) key = `${key} (${entry.source ?? 'path'})`;
    if (builder.get(key) !== undefined) continue;
    const hex = entry.checksum ?? checksums.get(`${entry.name} ${entry.version} ${idKey}`) ?? null;
    let occurrence: Occurrence;
    if (kind.source === 'path' && ctx.isMember(entry.name, entry.version)) {
      const isProject = entry.name === ctx.rootName;
      // The package beside the lockfile is the project itself: at the top (install path ''), so
      // the documents make it their subject rather than one of its workspace members.
      occurrence = builder.root(key, {
        name: entry.name,
        version: entry.version,
        source: isProject ? 'root' : 'workspace',
        ...(isProject ? { installPath: '' } : {}),
        license: ctx.memberLicense(entry.name),
      });
      if (ctx.memberKinds(entry.name) === null) rootsWithoutManifest++;
    } else {
      const source: OccurrenceSource = kind.source === 'path' ? 'file' : kind.source;
      occurrence = builder.add(key, {
        name: entry.name,
        version: entry.version,
        source,
        resolved: kind.resolved(entry.name, entry.version),
        integrity: hexIntegrity('sha256', hex),
        facts: kind.facts,
      });
    }
    identity.set(occurrence, idKey);
    added.push([entry, occurrence]);
  }

  const target = (spec: string): Occurrence | null => {
    const ref = parseDependencyRef(spec);
    if (ref === null) return null;
    const wanted = ref.source === null ? null : sourceIdentity(ref.source);
    return builder.resolve(ref.name, (o) => o.version === ref.version && (wanted === null || identity.get(o) === wanted));
  };
  let dangling = 0;
  if (workspace !== null) for (const [, o] of added) if (o.source === 'workspace') builder.edge(workspace, o, 'prod');
  for (const [entry, occurrence] of added) {
    const kinds = occurrence.source === 'root' || occurrence.source === 'workspace' ? ctx.memberKinds(entry.name) : null;
    for (const spec of entry.dependencies) {
      const to = target(spec);
      if (to === null) {
        dangling++;
        continue;
      }
      builder.edge(occurrence, to, kinds?.get(to.name) ?? 'prod');
    }
    // A `[replace]`d package (v1) is built from its replacement.
    if (entry.replace !== null) {
      const to = target(entry.replace);
      if (to !== null) builder.edge(occurrence, to, 'prod');
    }
  }
  if (dangling > 0) builder.notice(`${path}: ${dangling} dependency reference(s) name no package of the lockfile`);
  const unused = list(own(table(own(doc, 'patch')), 'unused')).length;
  if (unused > 0) builder.notice(`${path}: ${unused} unused [patch] ${unused === 1 ? 'entry is not a component' : 'entries are not components'}`);

  for (const { path: manifest, role } of ctx.covered) builder.covers(manifest, role);
  // A requirement of a member that the lockfile does not record: the lockfile is older than the manifest.
  for (const declaration of ctx.declared) if (builder.named(declaration.name).length === 0) builder.unresolved(declaration);

  // Scopes need every member's manifest: a member without one could hide dev-dependencies as normal ones.
  const scopes = rootsWithoutManifest === 0 && added.some(([, o]) => o.source === 'root' || o.source === 'workspace') ? 'graph' : 'unknown';
  const inventory = builder.finish({ kind: 'Cargo.lock', version: version.value, scopes });
  return { ok: true, inventory };
}
