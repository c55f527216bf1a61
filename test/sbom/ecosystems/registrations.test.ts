import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { offlineEcosystems } from '../../../src/ecosystems/analysis.js';
import { ECOSYSTEMS, REGISTRY_KEYS } from '../../../src/ecosystems/index.js';
import { detectFiles } from '../../../src/sbom/detect.js';
import { parseTarget } from '../../../src/inventory/targets.js';

/** A file of each name a registration declares (`*` stands for any name: a version fits every pattern), in a folder of its own. */
function declaredFiles(files: readonly string[]): { path: string; content: string }[] {
  return files.map((name) => ({ path: `project/${name.replaceAll('*', '5')}`, content: '' }));
}

describe('ecosystem registrations', () => {
  it('name one folder each, with the same files, and no id, registry key or target prefix twice', () => {
    const ids = ECOSYSTEMS.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      for (const file of ['index.ts', 'detect.ts', 'purl.ts', 'analysis.ts']) expect(existsSync(new URL(`../../../src/ecosystems/${id}/${file}`, import.meta.url)), `${id}/${file}`).toBe(true);
    }
    expect(new Set(REGISTRY_KEYS).size).toBe(REGISTRY_KEYS.length);
    const prefixes = ECOSYSTEMS.flatMap((e) => ('packages' in e ? [...e.packages.prefixes] : []));
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const e of ECOSYSTEMS) {
      if (!('packages' in e)) continue;
      expect(existsSync(new URL(`../../../src/ecosystems/${e.id}/source.ts`, import.meta.url)), `${e.id}/source.ts`).toBe(true);
      // Every prefix is a target prefix, an alias naming the first.
      for (const prefix of e.packages.prefixes) expect(parseTarget(`${prefix}:${e.id === 'maven' ? 'g:a' : e.id === 'composer' ? 'acme/app' : e.id === 'golang' ? 'example.com/m' : 'app'}`)).toMatchObject({ ok: true, target: { registry: e.packages.prefixes[0] } });
    }
  });

  it('declare as data the file names they claim: each is claimed by name, by its own ecosystem', () => {
    const ecosystems = offlineEcosystems();
    for (const registration of ECOSYSTEMS) {
      expect(registration.detect.files.length, registration.id).toBeGreaterThan(0);
      for (const file of declaredFiles(registration.detect.files)) {
        expect(registration.detect.claim(file), file.path).toMatchObject({ by: 'name' });
        const { claims } = detectFiles([file], ecosystems);
        expect([...claims.keys()].map((e) => e.id), file.path).toEqual([registration.id]);
      }
    }
  });
});
