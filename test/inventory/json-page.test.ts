import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { JsonPage, acceptsGzip } from '../../src/routes/inventory/json-page.js';

describe('acceptsGzip', () => {
  it('accepts gzip, x-gzip or * listed without parameters, in any case and spacing', () => {
    for (const header of ['gzip', 'gzip, deflate', 'deflate, gzip', 'br,GZIP', ' x-gzip ', 'deflate,\t*', 'gzip, deflate, br, zstd']) {
      expect(acceptsGzip(header), header).toBe(true);
    }
    for (const header of ['', 'deflate', 'br, zstd', 'gzipped', 'x-gzipx, deflate', 'identity']) {
      expect(acceptsGzip(header), header).toBe(false);
    }
    expect(acceptsGzip(undefined)).toBe(false);
  });

  it('honours q-values: zero refuses, any other weight accepts', () => {
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('gzip; q=0, deflate')).toBe(false);
    expect(acceptsGzip('br;q=1, gzip;q=0.5')).toBe(true);
    expect(acceptsGzip('deflate;q=1, *;q=0.1')).toBe(true);
    expect(acceptsGzip('br;q=1, deflate')).toBe(false);
  });
});

describe('JsonPage', () => {
  it('compresses once and keeps the compressed form', () => {
    const page = new JsonPage(JSON.stringify({ text: 'x'.repeat(5000) }));
    const first = page.gzip();
    expect(page.gzip()).toBe(first);
    expect(gunzipSync(first).toString('utf8')).toBe(page.json);
  });
});
