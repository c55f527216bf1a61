import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SERVICE_VERSION } from '../src/version.js';

describe('service version', () => {
  it('is the version package.json states', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(SERVICE_VERSION).toBe(pkg.version);
  });
});
