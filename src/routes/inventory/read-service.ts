import { isUtf8 } from 'node:buffer';
import { gunzipSync } from 'node:zlib';
import { DomainError } from '../../errors.js';
import type { InventoryCatalog } from '../../inventory/store/catalog.js';
import type { ReadResponseType } from './schemas.js';
import { JsonPage, PageCache } from './json-page.js';
import { entryFacts } from './listing/shared.js';
import type { ServedInventory } from './listing/types.js';
import type { InventoryStore } from '../../inventory/store/store.js';
import type { ListTarget } from '../../inventory/targets.js';

/** Largest slice one read returns (its base64 form stays well under the 2 MiB body limit). */
export const READ_MAX_LENGTH = 1024 * 1024;

export interface ReadRequest {
  readonly target: ListTarget;
  readonly path: string;
  readonly offset: number;
  readonly length: number;
}

/**
 * `GET /v1/read`: one file or page of a prepared inventory, byte for byte: UTF-8 text as is,
 * anything else (or a slice cutting a character) as base64; `offset`/`length` page through
 * large files.
 */
export class ReadService {
  private readonly contents = new Map<string, Buffer>();
  private cachedBytes = 0;
  private readonly answers: PageCache;

  constructor(
    private readonly store: InventoryStore,
    private readonly catalog: InventoryCatalog,
    private readonly maxCacheBytes = 64 * 1024 * 1024,
  ) {
    this.answers = new PageCache(maxCacheBytes);
  }

  /** A content by hash, decompressed (recent ones cached). */
  async content(hash: string): Promise<Buffer | null> {
    const cached = this.contents.get(hash);
    if (cached) return cached;
    const blob = await this.store.blob(hash);
    if (blob === null) return null;
    const bytes = blob.encoding === 'gzip' ? gunzipSync(blob.data) : blob.data;
    if (bytes.length <= this.maxCacheBytes / 8) {
      this.contents.set(hash, bytes);
      this.cachedBytes += bytes.length;
      for (const [key, value] of this.contents) {
        if (this.cachedBytes <= this.maxCacheBytes) break;
        this.contents.delete(key);
        this.cachedBytes -= value.length;
      }
    }
    return bytes;
  }

  /**
   * The answer as JSON text, kept (with its gzip form) when it comes from an immutable snapshot:
   * the same file read again costs neither its serialisation nor its compression.
   */
  async answer(request: ReadRequest, served: ServedInventory): Promise<JsonPage> {
    const immutable = served.inventoryKind === 'source' && served.generation === '';
    const key = immutable
      ? [served.row.id, request.target.text, served.actionTarget, JSON.stringify(served.served), request.path, request.offset, request.length].join('\u0000')
      : null;
    const kept = key === null ? undefined : this.answers.get(key);
    if (kept !== undefined) return kept;
    const page = new JsonPage(JSON.stringify(await this.read(request, served)));
    if (key !== null && page.json.length <= this.maxCacheBytes / 8) {
      this.answers.set(key, page);
    }
    return page;
  }

  async read(request: ReadRequest, served: ServedInventory): Promise<ReadResponseType> {
    const index = await this.catalog.index(served.row.id, served.generation);
    const entry = index.get(request.path);
    if (!entry) {
      const why = index.isDirectory(request.path) ? 'is a directory; list it instead' : 'does not exist in this snapshot';
      throw new DomainError('READ_PATH_NOT_FOUND', `${JSON.stringify(request.path)} ${why}.`);
    }
    if (entry.contentHash === null) {
      throw new DomainError('READ_CONTENT_UNAVAILABLE', 'This file is larger than the service stores, so its content cannot be read.');
    }
    const bytes = await this.content(entry.contentHash);
    if (bytes === null) throw new DomainError('READ_CONTENT_UNAVAILABLE', 'The content of this file is not available.');
    const start = Math.min(request.offset, bytes.length);
    let end = Math.min(bytes.length, start + request.length);
    const text = entry.lineCount !== null || entry.kind === 'page';
    if (text && end < bytes.length) {
      // End the slice on a character boundary (never inside a UTF-8 sequence).
      while (end > start && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
    }
    const slice = bytes.subarray(start, end);
    const asText = text && isUtf8(slice);
    return {
      inventory_kind: served.inventoryKind,
      requested_target: request.target.text,
      canonical_target: served.actionTarget,
      ...entryFacts(entry),
      encoding: asText ? 'utf-8' : 'base64',
      content: asText ? slice.toString('utf8') : slice.toString('base64'),
      truncated: end < bytes.length,
      next_offset: end < bytes.length ? end : null,
      served: served.served,
    };
  }
}
