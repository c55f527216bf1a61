import { Readable } from 'node:stream';
import type { RegistryHttp } from '../../sbom/ecosystems/types.js';
import { downloadBytes } from '../../registry/download.js';
import { RegistryMalformed, RegistryUnavailable, TarballUnavailable, type PackageVersion } from './npm.js';

/** What every registry source but npm shares: its JSON documents and its archive downloads. */

/**
 * A registry JSON document (null: 404/410), checked by `usable`; an answer that is not JSON or
 * not usable is `RegistryMalformed`, a 5xx, network failure or deadline `RegistryUnavailable`.
 */
export async function registryJson<T extends object>(http: RegistryHttp, url: string, usable: (doc: T) => boolean): Promise<T | null> {
  let doc: unknown;
  try {
    doc = await http.json(url);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'REGISTRY_RESPONSE') throw new RegistryMalformed({ cause: error });
    throw new RegistryUnavailable(error instanceof Error && /in time/.test(error.message), { cause: error });
  }
  if (doc === null) return null;
  if (typeof doc !== 'object' || Array.isArray(doc) || !usable(doc as T)) throw new RegistryMalformed();
  return doc as T;
}

const ARCHIVE = { timeoutMs: 60_000, maxBytes: 256 * 1024 * 1024 };

/** The version's archive, downloaded within bounds: gone is `TarballUnavailable`, a failure `RegistryUnavailable`. */
export async function fetchArchive(version: PackageVersion): Promise<Readable> {
  if (version.tarball === null) throw new TarballUnavailable(null);
  const result = await downloadBytes(version.tarball, ARCHIVE);
  if (result.kind === 'gone') throw new TarballUnavailable(result.status);
  if (result.kind === 'failed') throw new RegistryUnavailable(result.timedOut, { cause: result.cause });
  return Readable.from([result.bytes]);
}
