import type { InventoryFacts } from '../../db/schema/index.js';

/** The records of inventories and blobs as the store reads and writes them. */

export type InventoryKind = 'package' | 'repository' | 'site';
export type InventoryState = 'pending' | 'preparing' | 'ready' | 'failed' | 'unavailable';

export interface InventoryRow {
  readonly id: string;
  readonly kind: InventoryKind;
  readonly identity: string;
  readonly registry: string | null;
  readonly packageName: string | null;
  readonly version: string | null;
  readonly state: InventoryState;
  readonly failure: string | null;
  readonly attempt: number;
  readonly fileCount: number | null;
  readonly totalBytes: number | null;
  readonly facts: InventoryFacts;
  readonly preparationMs: number | null;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  readonly updatedAt: Date;
}

export interface NewInventory {
  readonly kind: InventoryKind;
  readonly identity: string;
  readonly registry?: string | null;
  readonly packageName?: string | null;
  readonly version?: string | null;
  readonly facts?: InventoryFacts;
}

export interface BlobRecord {
  readonly hash: string;
  readonly byteSize: number;
  readonly encoding: 'gzip' | 'identity';
  readonly data: Buffer;
  /** The text, for grep's trigram index: set for UTF-8 text up to GREP_INDEX_MAX_BYTES. */
  readonly text?: string | null;
}

/** What grep asks the trigram index (see `InventoryStore.grepCandidates`). */
export interface GrepFilter {
  readonly kind: 'like' | 'regex';
  readonly pattern: string;
  readonly caseSensitive: boolean;
  readonly timeoutMs: number;
}
