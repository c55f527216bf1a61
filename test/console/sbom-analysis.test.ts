import { describe, expect, it } from 'vitest';
import { breakdown, filterAndSort, pathsTo } from '../../console/src/sbom/analysis.js';
import { DocumentError, readCycloneDx } from '../../console/src/sbom/document.js';

const component = (ref: string, extra: Record<string, unknown> = {}) => ({ 'bom-ref': ref, type: 'library', name: ref, version: '1.0.0', ...extra });

/** root → a, b; a → c; b → c; c → d; w (a workspace member, application) → e; orphan has no edge. */
const DOC = {
  bomFormat: 'CycloneDX',
  specVersion: '1.7',
  metadata: { component: component('root', { type: 'application' }) },
  components: [
    component('a', { licenses: [{ expression: 'MIT OR Apache-2.0' }] }),
    component('b', { licenses: [{ license: { id: 'MIT' } }] }),
    component('c', { licenses: [{ license: { name: 'Custom' } }], scope: 'optional' }),
    component('d', { licenses: [{ license: { id: 'MIT' } }, { license: { name: 'Extra terms' } }] }),
    component('w', { type: 'application' }),
    component('e', { group: '@scope', purl: 'pkg:npm/%40scope/e@1.0.0' }),
    component('orphan'),
  ],
  dependencies: [
    { ref: 'root', dependsOn: ['a', 'b'] },
    { ref: 'a', dependsOn: ['c'] },
    { ref: 'b', dependsOn: ['c'] },
    { ref: 'c', dependsOn: ['d'] },
    { ref: 'w', dependsOn: ['e'] },
  ],
  properties: [
    { name: 'service:completeness', value: 'recorded_lockfile_inventory' },
    { name: 'service:declarations', value: 'not json' },
    { name: 'service:lockfiles', value: JSON.stringify([{ path: 'package-lock.json', kind: 'package-lock', version: '3', entries: 7 }]) },
  ],
};

describe("the console's reading of a CycloneDX document", () => {
  const sbom = readCycloneDx(DOC);

  it('reads components, licenses by kind, ecosystems from purls and the evidence, tolerating a malformed property', () => {
    expect(sbom.subject?.ref).toBe('root');
    expect(sbom.components.map((c) => c.ref)).toEqual(['a', 'b', 'c', 'd', 'w', 'e', 'orphan']);
    expect(sbom.byRef.get('a')?.license).toEqual({ kind: 'expression', label: 'MIT OR Apache-2.0' });
    expect(sbom.byRef.get('b')?.license).toEqual({ kind: 'spdx-id', label: 'MIT' });
    expect(sbom.byRef.get('c')?.license).toEqual({ kind: 'named', label: 'Custom' });
    expect(sbom.byRef.get('d')?.license).toEqual({ kind: 'expression', label: 'MIT AND (Extra terms)' });
    expect(sbom.byRef.get('orphan')?.license).toEqual({ kind: 'unknown', label: 'unknown' });
    expect(sbom.byRef.get('e')).toMatchObject({ name: '@scope/e', ecosystem: 'npm' });
    expect(sbom.byRef.get('c')?.scope).toBe('optional');
    expect(sbom.byRef.get('a')?.scope).toBe('unspecified');
    expect(sbom.evidence).toMatchObject({ completeness: 'recorded_lockfile_inventory', declarations: [], lockfiles: [{ path: 'package-lock.json', entries: 7 }] });
  });

  it('refuses what is not CycloneDX', () => {
    expect(() => readCycloneDx({ spdxVersion: 'SPDX-2.3' })).toThrow(DocumentError);
    expect(() => readCycloneDx([])).toThrow(DocumentError);
  });

  it('finds every shortest path from the roots, from a workspace member too, and none to an orphan', () => {
    expect(pathsTo(sbom, 'd')).toEqual([
      ['root', 'a', 'c', 'd'],
      ['root', 'b', 'c', 'd'],
    ]);
    expect(pathsTo(sbom, 'd', 1)).toHaveLength(1);
    expect(pathsTo(sbom, 'e')).toEqual([['w', 'e']]);
    expect(pathsTo(sbom, 'root')).toEqual([['root']]);
    expect(pathsTo(sbom, 'orphan')).toEqual([]);
  });

  it('folds small groups into "others" and filters by every word', () => {
    const licenses = breakdown(sbom.components, (c) => c.license.label, 3, (c) => c.license.kind);
    expect(licenses).toEqual([
      { label: 'unknown', count: 3, kind: 'unknown' },
      { label: 'Custom', count: 1, kind: 'named' },
      { label: '3 others', count: 3, kind: 'other' },
    ]);
    expect(filterAndSort(sbom.components, 'mit apache', 'name', false).map((c) => c.ref)).toEqual(['a']);
    expect(filterAndSort(sbom.components, '', 'license', true)[0]?.ref).toBe('w');
  });
});
