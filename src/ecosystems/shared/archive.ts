import type { Dispatcher } from 'undici';
import { blockedIn } from '../../net/address-policy.js';
import type { RegistryHttp } from '../types.js';
import { downloadBytes } from '../../archives/download.js';
import { readTarball, type ArchiveRoot, type TarFile, type TarLimits, type TarReadResult } from '../../archives/tar-reader.js';
import { readZip } from '../../archives/zip-reader.js';
import { RegistryMalformed, RegistryUnavailable, TarballUnavailable } from './source-errors.js';
import { RegistryTimeoutError } from '../../model/registry-unreachable.js';
import { Readable } from 'node:stream';

/** What every registry source but npm shares: its JSON documents and its archive downloads. */

/** A registry source's HTTP: its documents, and the dispatcher its archives download through (redirects followed, each hop under the address policy). */
export interface SourceHttp extends RegistryHttp {
  readonly archives: Dispatcher;
}

/**
 * A registry JSON document (null: 404/410), checked by `usable`; an answer that is not JSON or
 * not usable is `RegistryMalformed`, a 5xx, network failure or deadline `RegistryUnavailable`.
 */
export async function registryJson<T extends object>(http: RegistryHttp, url: string, usable: (doc: T) => boolean): Promise<T | null> {
  return sourceJson(() => http.json(url), usable);
}

/** A registry JSON value of any shape (an array, say), checked by `usable`; failures as for `registryJson`. */
export async function registryDocument(http: RegistryHttp, url: string, usable: (doc: unknown) => boolean): Promise<unknown> {
  return sourceDocument(() => http.json(url), usable);
}

/** The JSON object an ecosystem's registry client fetched (`ask`), checked and failed as for `registryJson`. */
export async function sourceJson<T extends object>(ask: () => Promise<unknown>, usable: (doc: T) => boolean): Promise<T | null> {
  const doc = await sourceDocument(ask, (d) => typeof d === 'object' && d !== null && !Array.isArray(d) && usable(d as T));
  return doc as T | null;
}

/** The JSON value an ecosystem's registry client fetched (`ask`), checked and failed as for `registryDocument`. */
export async function sourceDocument(ask: () => Promise<unknown>, usable: (doc: unknown) => boolean): Promise<unknown> {
  let doc: unknown;
  try {
    doc = await ask();
  } catch (error) {
    throw registryFailure(error);
  }
  if (doc === null) return null;
  if (!usable(doc)) throw new RegistryMalformed();
  return doc;
}

/** A registry text document (null: 404/410); failures as for `registryJson`. */
export async function registryText(http: RegistryHttp, url: string, accept = '*/*'): Promise<string | null> {
  try {
    return await http.text(url, { accept });
  } catch (error) {
    throw registryFailure(error);
  }
}

function registryFailure(error: unknown): Error {
  if ((error as { code?: unknown } | null)?.code === 'REGISTRY_RESPONSE') return new RegistryMalformed({ cause: error });
  // The refusal stays findable in the cause chain (the listing names it).
  const blocked = blockedIn(error);
  if (blocked !== null) return new RegistryUnavailable(false, { cause: blocked });
  return new RegistryUnavailable(error instanceof RegistryTimeoutError, { cause: error });
}

/** Provenance is guidance: a registry that cannot tell leaves it unknown rather than failing the preparation. */
export async function quietly<T>(fallback: T, ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch {
    return fallback;
  }
}

const ARCHIVE = { timeoutMs: 60_000, maxBytes: 256 * 1024 * 1024 };

/**
 * An archive's bytes, downloaded within bounds: gone is `TarballUnavailable` (null when `optional`),
 * a destination the address policy refuses `BlockedAddress` (retrying will not change it), any
 * other failure `RegistryUnavailable`.
 */
export async function archiveBytes(http: SourceHttp, url: string | null): Promise<Buffer>;
export async function archiveBytes(http: SourceHttp, url: string | null, optional: true): Promise<Buffer | null>;
export async function archiveBytes(http: SourceHttp, url: string | null, optional = false): Promise<Buffer | null> {
  if (url === null) throw new TarballUnavailable(null);
  const result = await downloadBytes(url, { ...ARCHIVE, dispatcher: http.archives });
  if (result.kind === 'gone') {
    if (optional) return null;
    throw new TarballUnavailable(result.status);
  }
  if (result.kind === 'failed') throw blockedIn(result.cause) ?? new RegistryUnavailable(result.timedOut, { cause: result.cause });
  return result.bytes;
}

/** Zip by its `PK` signature; gzip by its magic; anything else is read as a plain tar. */
export function readArchive(bytes: Buffer, limits: TarLimits, onFile: (file: TarFile) => Promise<void>, root: ArchiveRoot): Promise<TarReadResult> {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b) return readZip(bytes, limits, onFile, root);
  return readTarball(Readable.from([bytes]), limits, onFile, { root, gzip: bytes[0] === 0x1f && bytes[1] === 0x8b });
}

/**
 * The members of an outer plain tar that wraps the real archive (a `.gem`, a Hex tarball), by
 * name; each up to the total limit (they are compressed archives, not package files).
 */
export async function tarMembers(bytes: Buffer, limits: TarLimits, wanted: readonly string[]): Promise<Map<string, Buffer>> {
  const members = new Map<string, Buffer>();
  await readTarball(
    Readable.from([bytes]),
    { ...limits, maxFileBytes: limits.maxTotalBytes },
    async (file) => {
      if (wanted.includes(file.path) && file.bytes !== null) members.set(file.path, file.bytes);
    },
    { gzip: false, root: 'none' },
  );
  return members;
}
