import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedOutput, writeJson } from '../../src/sbom/render/output.js';

describe('a document being written', () => {
  it('is the concatenation of what was written, joined once and the same when asked again or written on', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' })), fc.array(fc.string()), (first, more) => {
        const out = new BoundedOutput(Number.MAX_SAFE_INTEGER);
        for (const text of first) out.write(text);
        expect(out.toString()).toBe(first.join(''));
        expect(out.toString()).toBe(first.join(''));
        for (const text of more) out.write(text);
        expect(out.toString()).toBe(first.join('') + more.join(''));
        expect(out.byteSize).toBe(Buffer.byteLength(first.join('') + more.join('')));
      }),
    );
  });

  it('writes any JSON value as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const out = new BoundedOutput(Number.MAX_SAFE_INTEGER);
        writeJson(out, value);
        expect(out.toString()).toBe(JSON.stringify(value));
      }),
    );
  });
});
