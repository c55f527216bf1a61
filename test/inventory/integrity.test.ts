import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { integrityCheck } from '../../src/archives/integrity.js';

const bytes = Buffer.from('the archive bytes');
const sri = (algorithm: string, data: Buffer = bytes) => `${algorithm}-${createHash(algorithm).update(data).digest('base64')}`;

/** Streams `bytes` in two chunks through the check; the bytes that came out. */
async function through(integrity: string): Promise<Buffer> {
  const out: Buffer[] = [];
  await pipeline(
    Readable.from([bytes.subarray(0, 5), bytes.subarray(5)]),
    integrityCheck(integrity),
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        out.push(chunk);
        callback();
      },
    }),
  );
  return Buffer.concat(out);
}

describe('integrityCheck', () => {
  it('passes matching bytes through unchanged', async () => {
    expect((await through(sri('sha512'))).equals(bytes)).toBe(true);
    expect((await through(`${sri('sha256')}?opt`)).equals(bytes)).toBe(true);
  });

  it('judges by the strongest algorithm named, any of its digests', async () => {
    await expect(through(`${sri('sha1', Buffer.from('other'))} ${sri('sha512')}`)).resolves.toBeDefined();
    await expect(through(`${sri('sha512', Buffer.from('other'))} ${sri('sha512')}`)).resolves.toBeDefined();
    await expect(through(`${sri('sha1')} ${sri('sha512', Buffer.from('other'))}`)).rejects.toMatchObject({ code: 'EINTEGRITY' });
  });

  it.each(['sha512-AAAA', 'md5-xyz', 'garbage', ''])('fails the stream with EINTEGRITY for %j', async (integrity) => {
    await expect(through(integrity)).rejects.toMatchObject({ code: 'EINTEGRITY' });
  });
});
