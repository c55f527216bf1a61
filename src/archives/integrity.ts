import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * Subresource-integrity checking of a streamed archive, as npm's clients do it: the strongest
 * algorithm the metadata names is computed while the bytes pass, and a mismatch fails the stream
 * with `EINTEGRITY` at its end (before the reader is told the stream ended).
 */

const STRENGTH = ['sha512', 'sha384', 'sha256', 'sha1'] as const;

export class IntegrityMismatch extends Error {
  readonly code = 'EINTEGRITY';
  constructor(readonly expected: string) {
    super('the archive does not match its integrity');
    this.name = 'IntegrityMismatch';
  }
}

/** The strongest algorithm of an SRI string with its accepted digests; null when it names none this checks. */
function strongest(integrity: string): { algorithm: (typeof STRENGTH)[number]; digests: Set<string> } | null {
  const byAlgorithm = new Map<string, Set<string>>();
  for (const token of integrity.trim().split(/\s+/)) {
    const dash = token.indexOf('-');
    if (dash <= 0) continue;
    const algorithm = token.slice(0, dash).toLowerCase();
    // SRI options (`?…`) follow the digest; they do not change it.
    const digest = token.slice(dash + 1).split('?')[0] ?? '';
    const set = byAlgorithm.get(algorithm) ?? new Set<string>();
    set.add(digest);
    byAlgorithm.set(algorithm, set);
  }
  for (const algorithm of STRENGTH) {
    const digests = byAlgorithm.get(algorithm);
    if (digests !== undefined) return { algorithm, digests };
  }
  return null;
}

/** A pass-through stream that fails with `IntegrityMismatch` unless its bytes match `integrity`. */
export function integrityCheck(integrity: string): Transform {
  const wanted = strongest(integrity);
  const hash = wanted === null ? null : createHash(wanted.algorithm);
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      hash?.update(chunk);
      callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      // Metadata naming no algorithm this checks is refused rather than trusted.
      const ok = wanted !== null && hash !== null && wanted.digests.has(hash.digest('base64'));
      callback(ok ? null : new IntegrityMismatch(integrity));
    },
  });
}
