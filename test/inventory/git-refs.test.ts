import { describe, expect, it } from 'vitest';
import { LsRemoteParser } from '../../src/inventory/sources/git-refs.js';

const SHA = 'a'.repeat(40);

describe('the ls-remote listing parser', () => {
  it('keeps a ref name whose UTF-8 character is split between two chunks of git output', () => {
    const listing = Buffer.from(`${SHA}\trefs/tags/版本-1.0\n${SHA}\trefs/heads/main\n`, 'utf8');
    // Split inside 版 (three bytes): the first chunk ends after its first byte.
    const cut = listing.indexOf(Buffer.from('版', 'utf8')) + 1;
    const parser = new LsRemoteParser(100);
    expect(parser.push(listing.subarray(0, cut))).toBe(true);
    expect(parser.push(listing.subarray(cut))).toBe(true);
    const refs = parser.end();
    expect([...refs.tags.keys()]).toEqual(['版本-1.0']);
    expect([...refs.branches.keys()]).toEqual(['main']);
  });
});
