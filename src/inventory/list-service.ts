import { gzipSync } from 'node:zlib';
import semver from 'semver';
import { ProblemError } from '../http/problems.js';
import type { InventoryCatalog } from './catalog.js';
import type { CursorCodec } from './cursor.js';
import type { IndexEntry } from './query.js';
import type {
  ListAvailableVersionType,
  ListEntryType,
  ListIdentityType,
  ListResponseType,
} from './schemas.js';
import { selectionKey, type Selection } from './selection.js';
import { RegistryUnavailable, type NpmPackageSource } from './sources/npm.js';
import type { ServedInventory } from './read-service.js';
import type { InventoryRow, InventoryStore } from './store.js';
import type { ListTarget, PackageTarget } from './targets.js';

export interface ListQuery {
  readonly target: ListTarget;
  readonly selection: Selection;
  readonly after: string | null;
  readonly waitMs: number;
}

export interface ListServiceDeps {
  readonly store: InventoryStore;
  readonly catalog: InventoryCatalog;
  readonly npm: NpmPackageSource;
  readonly cursors: CursorCodec;
  /** Adds the preparation job of an inventory (one per inventory: concurrent requests share it). */
  readonly enqueue: (row: InventoryRow) => Promise<void>;
  /** Waits (by event) until the inventory settles or the time is up; returns the last row read. */
  readonly wait: (row: InventoryRow, ms: number) => Promise<InventoryRow>;
  /** A failed preparation is tried again by a request arriving this long after it failed. */
  readonly failedRetryMs: number;
}

/** A package target resolved to one version: its identity and what the registry said of it. */
interface ResolvedPackage {
  readonly target: PackageTarget;
  readonly version: string;
  readonly row: InventoryRow;
}

const SETTLED = new Set(['ready', 'failed', 'unavailable']);

/** The spec's response body limit: a page over it is refused rather than cut. */
export const LIST_PAGE_LIMIT_BYTES = 2 * 1024 * 1024;

export function packageIdentity(name: string, version: string): string {
  return `npm:${name}@${version}`;
}

function notFound(detail: string): ProblemError {
  return new ProblemError('LIST_TARGET_NOT_FOUND', detail);
}

/**
 * `POST /v1/list` for package targets: resolve the version, find or start the preparation of its
 * inventory, optionally wait for it, and page through it.
 */
export class ListService {
  /** Ready inventories by identity: they never change, so exact versions need no query. */
  private readonly ready = new Map<string, InventoryRow>();
  /** Indexed versions per package, briefly: a version prepared meanwhile shows up within seconds. */
  private readonly versions = new Map<string, { at: number; value: Promise<ListAvailableVersionType[]> }>();
  /**
   * Serialised pages of ready inventories. A snapshot never changes, so a page is a function of
   * (inventory, requested target, selection, position) and of the indexed-versions list it
   * shows, whose refresh stamp is part of the key.
   */
  private readonly pages = new Map<string, ListPage>();
  private pageBytes = 0;

  constructor(
    private readonly deps: ListServiceDeps,
    private readonly maxPageCacheBytes = 64 * 1024 * 1024,
  ) {}

  private availableVersions(name: string): { stamp: number; value: Promise<ListAvailableVersionType[]> } {
    const cached = this.versions.get(name);
    if (cached && Date.now() - cached.at < 5_000) return { stamp: cached.at, value: cached.value };
    const value = this.deps.store.readyVersions('npm', name).then((list) => list.map((v) => ({ version: v, ref: v })));
    value.catch(() => this.versions.delete(name));
    const at = Date.now();
    this.versions.set(name, { at, value });
    if (this.versions.size > 10_000) this.versions.clear();
    return { stamp: at, value };
  }

  private cachePage(key: string, page: ListPage): void {
    this.pages.set(key, page);
    this.pageBytes += page.json.length;
    for (const [k, v] of this.pages) {
      if (this.pageBytes <= this.maxPageCacheBytes) break;
      this.pages.delete(k);
      this.pageBytes -= v.json.length;
    }
  }

  private readonly readyById = new Map<string, InventoryRow>();

  private remember(row: InventoryRow): void {
    // A version newly seen ready joins the package's indexed versions at once (in this process).
    if (!this.ready.has(row.identity) && row.packageName !== null) this.versions.delete(row.packageName);
    if (this.ready.size >= 50_000) {
      this.ready.clear();
      this.readyById.clear();
    }
    this.ready.set(row.identity, row);
    this.readyById.set(row.id, row);
  }

  /**
   * The ready inventory a read is served from; a target still being prepared (its preparation
   * started if needed) is 409 TARGET_NOT_READY, a failed one 409 too.
   */
  async served(target: ListTarget): Promise<ServedInventory> {
    if (target.kind !== 'package') throw new ProblemError('VALIDATION_ERROR', 'target kind is not served here');
    const { version, row } = await this.resolve(target, 0);
    const canonical = packageIdentity(target.name, version);
    if (row.state === 'unavailable') this.unavailable(row, canonical);
    if (row.state !== 'ready') {
      throw new ProblemError('TARGET_NOT_READY', `${canonical} is ${row.state === 'failed' ? 'not readable: its preparation failed' : 'being prepared'}; list it with wait_timeout_ms to wait.`, {
        extras: row.state === 'failed' ? {} : { indexing_ref: row.id },
      });
    }
    return {
      row,
      canonicalTarget: canonical,
      inventoryKind: 'source',
      served: { kind: null, registry: 'npm', package_name: target.name, version, repo_url: row.facts.repoUrl ?? null, git_ref: null, commit_sha: row.facts.gitHead ?? null },
    };
  }

  private unavailable(row: InventoryRow, canonical: string): never {
    const extras: Record<string, string> = {};
    if (row.facts.repoUrl) extras['repo_url'] = row.facts.repoUrl;
    if (row.facts.gitHead) extras['commit_sha'] = row.facts.gitHead;
    throw new ProblemError(
      'SOURCE_INVENTORY_SCOPE_UNAVAILABLE',
      `The tarball of ${canonical} is not available, so its files cannot be listed. A pinned repository target covers a broader scope.`,
      { extras },
    );
  }

  /** The page as JSON text (the form it is served and size-checked in). */
  async list(query: ListQuery): Promise<ListPage> {
    if (query.target.kind !== 'package') throw new ProblemError('VALIDATION_ERROR', 'target kind is not served here');
    const target = query.target;
    const key = selectionKey(target, query.selection);
    let resolved: ResolvedPackage;
    let after: string | null = null;
    if (query.after !== null && query.after !== '') {
      const cursor = this.deps.cursors.decode(query.after);
      if (cursor === null) throw new ProblemError('VALIDATION_ERROR', 'after is not a valid cursor; start again without it.');
      if (cursor.selection !== key) {
        throw new ProblemError('VALIDATION_ERROR', 'after belongs to another selection (target, paths, filters, recursion or limit changed); start again without it.');
      }
      const row = this.readyById.get(cursor.inventory) ?? (await this.deps.store.get(cursor.inventory));
      if (row?.state !== 'ready' || row.version === null) {
        throw new ProblemError('VALIDATION_ERROR', 'after refers to a snapshot no longer served; start again without it.');
      }
      this.remember(row);
      resolved = { target, version: row.version, row };
      after = cursor.after;
    } else {
      resolved = await this.resolve(target, query.waitMs);
    }
    const versions = this.availableVersions(target.name);
    const cacheKey = resolved.row.state === 'ready' ? `${resolved.row.id}\u0000${target.text}\u0000${key}\u0000${after ?? ''}\u0000${versions.stamp}` : null;
    const cached = cacheKey === null ? undefined : this.pages.get(cacheKey);
    if (cached !== undefined) return cached;
    const json = JSON.stringify(await this.respond(resolved, query, key, after, await versions.value));
    if (Buffer.byteLength(json, 'utf8') > LIST_PAGE_LIMIT_BYTES) {
      throw new ProblemError('VALIDATION_ERROR', `The page is larger than ${LIST_PAGE_LIMIT_BYTES} bytes; ask again with a smaller limit.`);
    }
    const page = new ListPage(json);
    if (cacheKey !== null) this.cachePage(cacheKey, page);
    return page;
  }

  private async resolve(target: PackageTarget, waitMs: number): Promise<ResolvedPackage> {
    const exact = target.spec !== null && semver.valid(target.spec) === target.spec ? target.spec : null;
    let row = exact === null ? undefined : (this.ready.get(packageIdentity(target.name, exact)) ?? (await this.deps.store.byIdentity(packageIdentity(target.name, exact))) ?? undefined);
    let version = exact;
    if (row === undefined) {
      let lookup;
      try {
        lookup = await this.deps.npm.lookup(target.name, target.spec);
      } catch (error) {
        if (error instanceof RegistryUnavailable) {
          throw error.timedOut
            ? new ProblemError('TIMEOUT', 'The registry did not answer in time; try again.')
            : new ProblemError('LIST_UNSUPPORTED_API', 'The registry could not be asked about this package; try again later.');
        }
        throw error;
      }
      if (lookup.kind === 'no_package') throw notFound(`The registry has no package ${target.name}.`);
      if (lookup.kind === 'no_version') throw notFound(`No version of ${target.name} matches ${target.spec ?? 'latest'}.`);
      version = lookup.version.version;
      const ensured = await this.deps.store.ensure({
        kind: 'package',
        identity: packageIdentity(target.name, version),
        registry: 'npm',
        packageName: target.name,
        version,
        facts: {
          tarball: lookup.version.tarball,
          integrity: lookup.version.integrity,
          unpackedSize: lookup.version.unpackedSize,
          fileCount: lookup.version.fileCount,
        },
      });
      row = ensured.row;
      if (ensured.created) await this.deps.enqueue(row);
    }
    if (row.state === 'failed' && row.finishedAt !== null && Date.now() - row.finishedAt.getTime() > this.deps.failedRetryMs) {
      const retried = await this.deps.store.retry(row.id);
      if (retried) {
        row = retried;
        await this.deps.enqueue(row);
      }
    }
    if (!SETTLED.has(row.state) && waitMs > 0) row = await this.deps.wait(row, waitMs);
    if (row.state === 'ready') this.remember(row);
    return { target, version: version ?? row.version ?? '', row };
  }

  private async respond(
    resolved: ResolvedPackage,
    query: ListQuery,
    key: string,
    after: string | null,
    available: ListAvailableVersionType[],
  ): Promise<ListResponseType> {
    const { target, version, row } = resolved;
    const canonical = packageIdentity(target.name, version);
    if (row.state === 'unavailable') this.unavailable(row, canonical);
    const identity: ListIdentityType = {
      kind: null,
      registry: 'npm',
      package_name: target.name,
      version,
      repo_url: row.facts.repoUrl ?? null,
      git_ref: null,
      commit_sha: row.facts.gitHead ?? null,
    };
    const ready = row.state === 'ready';
    let entries: ListEntryType[] = [];
    let hasMore = false;
    let nextCursor: string | null = null;
    if (ready) {
      const index = await this.deps.catalog.index(row.id);
      const page = index.page(query.selection, after);
      entries = page.entries.map((e) => toListEntry(e, canonical));
      hasMore = page.hasMore;
      const last = page.entries.at(-1);
      if (hasMore && last) nextCursor = this.deps.cursors.encode({ selection: key, inventory: row.id, after: last.path });
    }
    const working = row.state === 'pending' || row.state === 'preparing';
    const codeState = ready ? 'current' : row.state === 'preparing' ? 'indexing' : row.state === 'pending' ? 'pending' : 'failed';
    return {
      inventory_kind: 'source',
      requested_target: target.text,
      canonical_target: canonical,
      entries,
      has_more: hasMore,
      next_cursor: nextCursor,
      indexed_version: ready ? version : null,
      resolution: { requested_version: target.spec, requested_ref: null, resolved_ref: ready ? version : null, commit_sha: row.facts.gitHead ?? null },
      target_resolution: {
        requested: { kind: 'package', registry: 'npm', package_name: target.name, version: target.spec, repo_url: null, git_ref: null, commit_sha: null },
        resolved_requested: identity,
        served: ready ? identity : null,
        freshness: ready ? 'current' : codeState,
        freshness_reason: row.state === 'failed' ? row.failure : null,
        indexing_ref: working ? row.id : null,
        available_versions: available,
        available_refs: [],
        suggested_refs: [],
      },
      code_index_state: codeState,
      indexing_status: ready ? 'indexed' : codeState === 'indexing' ? 'indexing' : codeState === 'pending' ? 'pending' : 'failed',
      indexing_ref: working ? row.id : null,
      available_versions: available,
      indexing_estimate: working ? await this.estimate(row) : null,
      inventory_state: null,
      crawl_status: null,
      coverage_state: null,
      coverage_reason: null,
      preparation: null,
    };
  }

  /** From recorded preparation times, scaled by the version's file count when the registry gave it. */
  private async estimate(row: InventoryRow): Promise<ListResponseType['indexing_estimate']> {
    const samples = await this.deps.store.recentPreparations('package');
    const started = row.startedAt ?? row.updatedAt;
    const elapsed = Math.max(0, Math.round((Date.now() - started.getTime()) / 1000));
    if (samples.length === 0) return { lower_seconds: null, upper_seconds: null, elapsed_seconds: elapsed, sample_count: 0, source: null };
    const files = row.facts.fileCount ?? null;
    const perSample = samples
      .map((s) => (files !== null && s.fileCount ? (s.ms / Math.max(s.fileCount, 1)) * files : s.ms))
      .sort((a, b) => a - b);
    const at = (q: number): number => perSample[Math.min(perSample.length - 1, Math.floor(q * perSample.length))] ?? 0;
    return {
      lower_seconds: Math.floor(at(0.25) / 1000),
      upper_seconds: Math.ceil(at(0.9) / 1000),
      elapsed_seconds: elapsed,
      sample_count: samples.length,
      source: files === null ? 'recent_package_preparations' : 'recent_package_preparations_per_file',
    };
  }
}

/** A serialised page, with its gzip form made once on first demand. */
export class ListPage {
  private compressed: Buffer | null = null;
  constructor(readonly json: string) {}

  gzip(): Buffer {
    this.compressed ??= gzipSync(this.json, { level: 6 });
    return this.compressed;
  }
}

export function toListEntry(entry: IndexEntry, target: string): ListEntryType {
  if (entry.kind === 'directory') {
    return {
      kind: 'directory',
      path: entry.path,
      title: null,
      language: null,
      file_type: null,
      intent: null,
      byte_size: null,
      line_count: null,
      content_hash: null,
      read: null,
      browse: { target, paths: [entry.path] },
    };
  }
  return {
    kind: entry.kind,
    path: entry.path,
    title: entry.title,
    language: entry.language,
    file_type: entry.fileType,
    intent: entry.intent,
    byte_size: entry.byteSize,
    line_count: entry.lineCount,
    content_hash: entry.contentHash,
    read: { target, path: entry.path },
    browse: null,
  };
}
