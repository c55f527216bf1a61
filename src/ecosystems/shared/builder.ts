import type { Declaration, EdgeKind, Inventory, ManifestAssociation, Occurrence, OccurrenceSource, ResolutionOutcome } from '../../model/model.js';
import { emptyInventory } from '../../model/model.js';
import { deriveScopes } from '../../model/scopes.js';

/**
 * What every lockfile parser needs, once: occurrences keyed by their lockfile entry, a name index
 * for resolving edges to exact occurrences, edges without duplicates, roots, and scopes derived
 * from the graph when the file does not record them. Every operation is O(1) amortised, so a
 * parser built on it stays linear in its input.
 */

export interface EntryInit {
  readonly name: string;
  readonly version: string | null;
  readonly source: OccurrenceSource;
  /** Where the lockfile places it, or its key there; defaults to the entry key. */
  readonly installPath?: string;
  /** The name it is installed under when that differs from its own (an npm alias). */
  readonly alias?: string | null;
  readonly resolved?: string | null;
  /** Subresource-integrity style hashes (`sha256-<base64>`); hex digests convert with `hexIntegrity`. */
  readonly integrity?: string | null;
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly peer?: boolean;
  readonly license?: string | null;
  readonly facts?: Record<string, string>;
}

/** How the finished graph gets its scopes. */
export type ScopeRule =
  /** The parser set dev/optional from what the file records. */
  | 'recorded'
  /** Walk from the roots: what only dev edges reach is dev, what only optional edges reach is optional. */
  | 'graph'
  /** The file records nothing and no manifest tells: documents state no scope. */
  | 'unknown';

export interface LockfileSummary {
  /** The format's name in `service:lockfiles`, e.g. `poetry.lock`, `Cargo.lock`. */
  readonly kind: string;
  /** The format version the file declares, if any. */
  readonly version: string | null;
  readonly scopes: ScopeRule;
}

const DIGEST_BYTES = { sha1: 20, sha256: 32, sha384: 48, sha512: 64 } as const;

/**
 * A hex digest as the subresource-integrity string `EntryInit.integrity` carries (`sha256-<base64>`),
 * so lockfiles that record hex digests (Cargo.lock, composer.lock, pubspec.lock) reach the renderers'
 * checksums the same way npm's SRI strings do. Null when absent or not a digest of that length.
 */
export function hexIntegrity(algorithm: keyof typeof DIGEST_BYTES, hex: string | null | undefined): string | null {
  if (typeof hex !== 'string' || hex.length !== DIGEST_BYTES[algorithm] * 2 || !/^[0-9a-fA-F]+$/.test(hex)) return null;
  return `${algorithm}-${Buffer.from(hex, 'hex').toString('base64')}`;
}

/** A bom-ref unique across every lockfile of one analysis: the lockfile path and the entry key. */
export function lockfileRef(lockfile: string, key: string): string {
  return `${lockfile}#${key === '' ? '.' : key}`;
}

/** Where an entry is and who records it: what the builder adds to a parser's `EntryInit`. */
interface Placement {
  readonly ref: string;
  readonly ecosystem: string;
  readonly installPath: string;
  readonly lockfile: string;
}

/**
 * The one way an occurrence is made (every ecosystem's parsers make theirs through `GraphBuilder`):
 * the entry's facts, each unset one at its default (one given as undefined stays undefined, as an
 * object spread would keep it). Written out member by member: the two object spreads this was
 * made with took ten times as long, a tenth of reading a lockfile of 50,000 entries.
 */
function newOccurrence(init: EntryInit, at: Placement): Occurrence {
  return {
    ref: at.ref,
    ecosystem: at.ecosystem,
    name: init.name,
    version: init.version,
    alias: 'alias' in init ? (init.alias as string | null) : null,
    installPath: at.installPath,
    lockfile: at.lockfile,
    source: init.source,
    resolved: 'resolved' in init ? (init.resolved as string | null) : null,
    integrity: 'integrity' in init ? (init.integrity as string | null) : null,
    dev: 'dev' in init ? (init.dev as boolean) : false,
    optional: 'optional' in init ? (init.optional as boolean) : false,
    scopeKnown: true,
    peer: 'peer' in init ? (init.peer as boolean) : false,
    license: 'license' in init ? (init.license as string | null) : null,
    dependencies: [],
    facts: 'facts' in init ? (init.facts as Record<string, string>) : {},
  };
}

/** Targets each occurrence already has an edge to: a set, so adding an edge is O(1), not O(degree). */
const edgeTargets = new WeakMap<Occurrence, Set<string>>();

/** Adds an edge once per target (the first declaration's kind wins), never to itself. */
function addEdge(from: Occurrence, to: Occurrence, kind: EdgeKind, range: string | null = null): void {
  if (from === to) return;
  let targets = edgeTargets.get(from);
  if (targets === undefined) {
    targets = new Set(from.dependencies.map((e) => e.ref));
    edgeTargets.set(from, targets);
  }
  if (targets.has(to.ref)) return;
  targets.add(to.ref);
  from.dependencies.push(range === null ? { ref: to.ref, kind } : { ref: to.ref, kind, range });
}

export class GraphBuilder {
  private readonly byKey = new Map<string, Occurrence>();
  private readonly byName = new Map<string, Occurrence[]>();
  private readonly rootRefs: string[] = [];
  private readonly rootSet = new Set<string>();
  private readonly inventory: Inventory = emptyInventory();

  /**
   * @param lockfile upload path of the file the entries come from (the manifest, when resolved)
   * @param ecosystem purl type of every occurrence it builds
   * @param nameKey identity of a name for lookups (PEP 503 normalisation for Python, …)
   */
  constructor(
    readonly lockfile: string,
    readonly ecosystem: string,
    private readonly nameKey: (name: string) => string = (name) => name,
  ) {}

  private make(key: string, init: EntryInit): Occurrence {
    return newOccurrence(init, { ref: lockfileRef(this.lockfile, key), ecosystem: this.ecosystem, installPath: init.installPath ?? key, lockfile: this.lockfile });
  }

  /** The occurrence of lockfile entry `key`; a repeated key returns the first one, unchanged. */
  add(key: string, init: EntryInit): Occurrence {
    const existing = this.byKey.get(key);
    if (existing) return existing;
    const o = this.make(key, init);
    this.byKey.set(key, o);
    const nk = this.nameKey(init.name);
    const list = this.byName.get(nk);
    if (list) list.push(o);
    else this.byName.set(nk, [o]);
    this.inventory.occurrences.push(o);
    return o;
  }

  /** A project root or workspace member: a component of the document, never a dependency. */
  root(key: string, init: Omit<EntryInit, 'source'> & { readonly source?: 'root' | 'workspace' }): Occurrence {
    const o = this.add(key, { ...init, source: init.source ?? 'root' });
    if (!this.rootSet.has(o.ref)) {
      this.rootSet.add(o.ref);
      this.rootRefs.push(o.ref);
    }
    return o;
  }

  /** Whether `o` is a root or workspace member of this graph. */
  isRoot(o: Occurrence): boolean {
    return this.rootSet.has(o.ref);
  }

  get(key: string): Occurrence | undefined {
    return this.byKey.get(key);
  }

  /** Every occurrence of a name (by its identity key), in insertion order. */
  named(name: string): readonly Occurrence[] {
    return this.byName.get(this.nameKey(name)) ?? [];
  }

  /**
   * The one occurrence a dependency on `name` means: the only one of that name, else the one whose
   * version `matches` accepts (first such), else null (ambiguous or absent: the caller decides).
   */
  resolve(name: string, matches?: (o: Occurrence) => boolean): Occurrence | null {
    const candidates = this.named(name);
    if (candidates.length === 1) return candidates[0] ?? null;
    if (matches === undefined) return null;
    return candidates.find(matches) ?? null;
  }

  /** An edge from → to, once per target (the first declaration's kind wins), never a self-loop. */
  edge(from: Occurrence, to: Occurrence, kind: EdgeKind, range: string | null = null): void {
    addEdge(from, to, kind, range);
  }

  /** A manifest this lockfile covers (an upload path), recorded as resolved by the lockfile. */
  covers(manifest: string, role: ManifestAssociation['role'] = 'root'): void {
    this.inventory.associations.push({ manifest, lockfile: this.lockfile, role });
    this.inventory.resolutions.push({ manifest, outcome: 'lockfile', detail: null });
  }

  /**
   * A manifest without a lockfile, resolved against the registry (`resolved`) or not (why, in
   * `detail`): no lockfile covers it, so its association names none.
   */
  manifest(manifest: string, outcome: Exclude<ResolutionOutcome, 'lockfile'>, detail: string | null = null, role: ManifestAssociation['role'] = 'root'): void {
    this.inventory.associations.push({ manifest, lockfile: null, role });
    this.inventory.resolutions.push({ manifest, outcome, detail });
  }

  /** A requirement that did not become a component. */
  unresolved(declaration: Declaration): void {
    this.inventory.declarations.push(declaration);
  }

  notice(text: string): void {
    this.inventory.notices.push(text);
  }

  get occurrences(): readonly Occurrence[] {
    return this.inventory.occurrences;
  }

  /** The inventory of this file: scopes settled, the lockfile recorded (unless it was a manifest). */
  finish(summary: LockfileSummary | null, scopes: ScopeRule = summary?.scopes ?? 'graph'): Inventory {
    const { occurrences } = this.inventory;
    this.inventory.roots.push(...this.rootRefs);
    if (scopes === 'graph') deriveScopes(occurrences, this.rootRefs);
    if (scopes === 'unknown') {
      for (const o of occurrences) if (!this.rootSet.has(o.ref)) o.scopeKnown = false;
    }
    if (summary !== null) {
      this.inventory.lockfiles.push({
        path: this.lockfile,
        kind: summary.kind,
        version: summary.version,
        entries: occurrences.length - this.rootRefs.length,
      });
    }
    return this.inventory;
  }
}

/** Appends `part` to `into` (both inventories of one analysis); loops, never a spread into push. */
export function mergeInventory(into: Inventory, part: Inventory): void {
  const append = <T>(target: T[], source: readonly T[]): void => {
    for (const item of source) target.push(item);
  };
  append(into.occurrences, part.occurrences);
  append(into.roots, part.roots);
  append(into.declarations, part.declarations);
  append(into.lockfiles, part.lockfiles);
  append(into.associations, part.associations);
  append(into.resolutions, part.resolutions);
  append(into.notices, part.notices);
}
