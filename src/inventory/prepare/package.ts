import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { InventoryFacts } from '../../db/schema/index.js';
import type { Logger } from '../../logger.js';
import { classifyFile, fileTypeOf, intentOf, languageOf, textFacts, type InventoryContext } from '../query/classify.js';
import type { StoredEntry } from '../query/query.js';
import { BlockedAddress } from '../../net/address-policy.js';
import { RegistryUnavailable, TarballUnavailable } from '../../ecosystems/shared/source-errors.js';
import type { PackageVersion } from '../../ecosystems/shared/package-source.js';
import type { PackageRegistry } from '../../ecosystems/index.js';
import type { PackageSources } from '../../ecosystems/shared/package-source.js';
import type { InventoryStore } from '../store/store.js';
import type { BlobRecord, InventoryRow } from '../store/records.js';
import { TarLimitError, type TarLimits } from '../../archives/tar-reader.js';

export interface PreparationDeps {
  readonly store: InventoryStore;
  /** The archive source of each registry with package targets (npm always). */
  readonly sources: PackageSources;
  readonly limits: TarLimits;
  readonly logger: Logger;
  /** Announces a state change of the inventory (waiting list requests re-read it). */
  readonly notify: (inventoryId: string) => Promise<void>;
  readonly maxAttempts: number;
}

/** `retry`: a transient failure left the inventory pending for another attempt. */
export type PreparationOutcome = 'done' | 'retry';

export function contentHash(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** Text files up to this size are indexed for grep (trigrams); larger ones are scanned when selected. */
export const GREP_INDEX_MAX_BYTES = 1024 * 1024;

/** The text grep indexes for a content: UTF-8 without NUL, not over the indexed size; else null. */
export function indexableText(bytes: Buffer): string | null {
  if (bytes.length > GREP_INDEX_MAX_BYTES || bytes.includes(0) || !isUtf8(bytes)) return null;
  return bytes.toString('utf8');
}

/** gzip unless that does not make it smaller. */
export function compress(bytes: Buffer): Pick<BlobRecord, 'encoding' | 'data'> {
  if (bytes.length < 64) return { encoding: 'identity', data: bytes };
  const gz = gzipSync(bytes, { level: 4 });
  return gz.length < bytes.length ? { encoding: 'gzip', data: gz } : { encoding: 'identity', data: bytes };
}

/**
 * Collects files into entries and content-addressed blobs. Blobs are written in batches; a
 * batch first asks which contents are stored already (shared across versions) and compresses
 * only the new ones.
 */
export class EntryCollector {
  readonly entries = new Map<string, StoredEntry>();
  readonly notes: string[] = [];
  private pending: { hash: string; bytes: Buffer }[] = [];
  private pendingBytes = 0;
  /** New text contents whose grep index entry is written after the snapshot is ready. */
  private readonly deferred: string[] = [];
  totalBytes = 0;

  /**
   * @param deferTexts index texts for grep only once the snapshot is ready (`indexTexts`): the
   *   trigram index costs more than storing the contents, and a listing need not wait for it.
   */
  constructor(
    private readonly store: InventoryStore,
    private readonly context: InventoryContext,
    private readonly deferTexts = false,
  ) {}

  /** A file; `bytes` null lists it without content (over the per-file limit; `size` null when unknown). */
  async add(path: string, size: number | null, bytes: Buffer | null): Promise<void> {
    if (this.entries.has(path)) this.notes.push(`${path}: duplicate entry, the last one kept`);
    this.totalBytes += size ?? 0;
    if (bytes === null) {
      this.notes.push(`${path}: ${size === null ? 'size unknown' : `${size} bytes`}, over the per-file limit; listed without content`);
      this.entries.set(path, {
        path,
        kind: 'file',
        byteSize: size,
        lineCount: null,
        contentHash: null,
        language: languageOf(path),
        fileType: fileTypeOf(path),
        intent: intentOf(path, null, this.context),
        title: null,
      });
      return;
    }
    const facts = classifyFile(path, bytes, this.context);
    const hash = contentHash(bytes);
    this.entries.set(path, {
      path,
      kind: 'file',
      byteSize: bytes.length,
      lineCount: facts.lineCount,
      contentHash: hash,
      language: facts.language,
      fileType: facts.fileType,
      intent: facts.intent,
      title: null,
    });
    this.pending.push({ hash, bytes });
    this.pendingBytes += bytes.length;
    if (this.pendingBytes > 8 * 1024 * 1024 || this.pending.length >= 500) await this.flush();
  }

  /**
   * A symlink (its content is the link target, never followed) or a submodule (no content: the
   * commit it pins lives in another repository).
   */
  async special(path: string, fileType: 'symlink' | 'submodule', bytes: Buffer | null): Promise<void> {
    const hash = bytes === null ? null : contentHash(bytes);
    this.entries.set(path, {
      path,
      kind: 'file',
      byteSize: bytes?.length ?? null,
      lineCount: null,
      contentHash: hash,
      language: null,
      fileType,
      intent: intentOf(path, null, this.context),
      title: null,
    });
    if (bytes === null || hash === null) return;
    this.totalBytes += bytes.length;
    this.pending.push({ hash, bytes });
    this.pendingBytes += bytes.length;
  }

  /** A documentation page (Markdown text): stored like a file, listed with its title. */
  async page(path: string, title: string | null, bytes: Buffer): Promise<StoredEntry> {
    const hash = contentHash(bytes);
    const entry: StoredEntry = {
      path,
      kind: 'page',
      byteSize: bytes.length,
      lineCount: textFacts(bytes).lineCount,
      contentHash: hash,
      language: 'markdown',
      fileType: 'md',
      intent: null,
      title,
    };
    this.entries.set(path, entry);
    this.totalBytes += bytes.length;
    this.pending.push({ hash, bytes });
    this.pendingBytes += bytes.length;
    if (this.pendingBytes > 8 * 1024 * 1024 || this.pending.length >= 500) await this.flush();
    return entry;
  }

  /** Contents stored by this collector whose grep index entry waits for `indexTexts`. */
  deferredTexts(): readonly string[] {
    return this.deferred;
  }

  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    if (batch.length === 0) return;
    const known = await this.store.knownBlobs([...new Set(batch.map((b) => b.hash))]);
    const fresh = new Map<string, BlobRecord>();
    for (const { hash, bytes } of batch) {
      if (known.has(hash) || fresh.has(hash)) continue;
      const text = indexableText(bytes);
      if (this.deferTexts && text !== null) this.deferred.push(hash);
      fresh.set(hash, { hash, byteSize: bytes.length, ...compress(bytes), text: this.deferTexts ? null : text });
    }
    const records = [...fresh.values()];
    for (let i = 0; i < records.length; i += 100) await this.store.putBlobs(records.slice(i, i + 100));
  }
}

/**
 * Writes the grep index entries of the texts a collector deferred, in batches read back from the
 * stored blobs (memory stays bounded by a batch). Grep scans contents without an entry meanwhile.
 */
export async function indexTexts(store: InventoryStore, collector: EntryCollector): Promise<number> {
  const hashes = collector.deferredTexts();
  for (let i = 0; i < hashes.length; i += 200) {
    const blobs = await store.blobsOf(hashes.slice(i, i + 200));
    const texts = blobs.flatMap((b) => {
      const text = indexableText(b.encoding === 'gzip' ? gunzipSync(b.data) : b.data);
      return text === null ? [] : [{ hash: b.hash, content: text }];
    });
    await store.putTexts(texts);
  }
  return hashes.length;
}

/** Whether this attempt is beyond the budget counted since the last retry or refresh. */
export function attemptsOver(row: InventoryRow, maxAttempts: number): boolean {
  return row.attempt - (row.facts.attemptsBefore ?? 0) > maxAttempts;
}

/** A claimed preparation attempt: its row, logger, start time and the way to end it without entries. */
export interface Attempt {
  readonly claimed: InventoryRow;
  readonly log: Logger;
  readonly started: number;
  /** Ends the attempt `failed` (or `unavailable`) with a reason and facts, announcing it. */
  end(state: 'failed' | 'unavailable', failure: string, facts: InventoryFacts): Promise<'done'>;
}

/**
 * Claims an inventory for a preparation attempt and announces it; null when there is nothing to
 * prepare. An attempt beyond the budget is ended at once (`failed`, too_many_attempts), also null.
 */
export async function beginAttempt(
  id: string,
  deps: { readonly store: InventoryStore; readonly logger: Logger; readonly notify: (id: string) => Promise<void>; readonly maxAttempts: number },
): Promise<Attempt | null> {
  const claimed = await deps.store.claim(id);
  if (claimed === null) return null;
  const log = deps.logger.child({ inventoryId: id, identity: claimed.identity });
  await deps.notify(id);
  const attempt: Attempt = {
    claimed,
    log,
    started: Date.now(),
    end: async (state, failure, facts) => {
      if (await deps.store.finishWithout(id, claimed.attempt, state, failure, facts)) await deps.notify(id);
      log.info({ state, failure }, 'preparation ended without an inventory');
      return 'done';
    },
  };
  if (attemptsOver(claimed, deps.maxAttempts)) {
    await attempt.end('failed', 'too_many_attempts', claimed.facts);
    return null;
  }
  return attempt;
}

/**
 * Prepares a package version's inventory: fetches the tarball (integrity verified while
 * streaming), reads its entries without extracting, classifies and stores every file, and
 * marks the inventory ready — or failed / unavailable with the reason — fenced on its attempt.
 */
export async function preparePackageInventory(id: string, deps: PreparationDeps): Promise<PreparationOutcome> {
  const { store } = deps;
  const attempt = await beginAttempt(id, deps);
  if (attempt === null) return 'done';
  const { claimed, log, started } = attempt;
  const facts: InventoryFacts = { ...claimed.facts };
  const finish = (state: 'failed' | 'unavailable', failure: string): Promise<PreparationOutcome> => attempt.end(state, failure, facts);
  try {
    // The repository and gitHead the registry records: the served identity and recovery guidance.
    const source = deps.sources[(claimed.registry ?? 'npm') as PackageRegistry];
    if (source === undefined) return await finish('failed', 'registry_not_configured');
    const provenance = await source.provenance(claimed.packageName ?? '', claimed.version ?? '');
    Object.assign(facts, provenance);
    const collector = new EntryCollector(store, 'package', true);
    const read = await source.read(packageVersionOf(claimed), deps.limits, (file) => collector.add(file.path, file.size, file.bytes));
    await collector.flush();
    const entries = [...collector.entries.values()];
    const skipped = [...read.skipped, ...collector.notes].slice(0, 200);
    const complete = await store.complete(id, claimed.attempt, entries, {
      fileCount: entries.length,
      totalBytes: collector.totalBytes,
      preparationMs: Date.now() - started,
      facts: { ...facts, skipped },
    });
    if (complete) {
      await deps.notify(id);
      log.info({ files: entries.length, bytes: collector.totalBytes, ms: Date.now() - started }, 'package inventory ready');
      const indexed = await indexTexts(store, collector);
      log.info({ texts: indexed, ms: Date.now() - started }, 'package texts indexed');
    }
    return 'done';
  } catch (error) {
    if (error instanceof TarballUnavailable) return finish('unavailable', 'tarball_unavailable');
    if (error instanceof TarLimitError) return finish('failed', error.reason);
    if ((error as { code?: unknown } | null)?.code === 'EINTEGRITY') return finish('failed', 'integrity_mismatch');
    // An archive address (or redirect) the outgoing-address policy refuses: retrying will not change it.
    if (error instanceof BlockedAddress) return finish('failed', 'blocked_address');
    if (error instanceof RegistryUnavailable && !attemptsOver({ ...claimed, attempt: claimed.attempt + 1 }, deps.maxAttempts)) {
      log.warn({ err: error, attempt: claimed.attempt }, 'registry unavailable; preparation will be retried');
      return 'retry';
    }
    log.error({ err: error }, 'preparation failed');
    return finish('failed', error instanceof RegistryUnavailable ? 'registry_unavailable' : 'internal_error');
  }
}

function packageVersionOf(row: InventoryRow): PackageVersion {
  return {
    name: row.packageName ?? '',
    version: row.version ?? '',
    tarball: row.facts.tarball ?? null,
    integrity: row.facts.integrity ?? null,
    unpackedSize: row.facts.unpackedSize ?? null,
    fileCount: row.facts.fileCount ?? null,
  };
}
