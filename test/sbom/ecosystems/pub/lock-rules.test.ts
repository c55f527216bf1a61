import { describe, expect, it } from 'vitest';
import { analyze } from '../../../../src/sbom/analyze.js';
import { pubEcosystem } from '../../../../src/ecosystems/pub/analysis.js';
import { buildThrough } from '../../../helpers/ecosystem.js';
import { edgesFrom, inScope } from '../../../helpers/ecosystem-fixtures.js';
import { fixtureSet } from '../fixture-set.js';

/** pubspec.lock rules that real Flutter apps exercise, on a fixture shaped like what `flutter pub get` writes. */

const FIXTURES = new URL('./fixtures/', import.meta.url);

describe('pubspec.lock rules', () => {
  it('SDK packages are components at their recorded version, supplied by the SDK, with the SDK purl pub’s spec gives', async () => {
    const eco = pubEcosystem(null);
    const result = await buildThrough(eco, fixtureSet(FIXTURES, 'flutter-sdk-and-path'));
    expect(result.problems).toEqual([]);
    expect(inScope(result, 'required')).toEqual(['flutter@0.0.0', 'weather_api@0.2.0']);
    expect(inScope(result, 'dev')).toEqual(['flutter_test@0.0.0']);
    expect(inScope(result, 'unknown')).toContain('sky_engine@0.0.99');
    const sdk = result.inventory.occurrences.filter((o) => o.facts['sdk'] !== undefined);
    expect(sdk.map((o) => `${o.name} ${o.source} ${o.facts['sdk'] ?? ''} ${eco.purl(o) ?? '-'}`)).toEqual([
      'flutter link flutter pkg:pub/flutter@0.0.0',
      'flutter_test link flutter pkg:pub/flutter_test@0.0.0',
      'sky_engine link flutter pkg:pub/sky_engine@0.0.99',
    ]);
    // What the SDK supplies is not a requirement left unresolved.
    expect(result.inventory.declarations).toEqual([]);
    expect(edgesFrom(result, 'weather_app')).toEqual(['flutter@0.0.0 (prod)', 'flutter_test@0.0.0 (dev)', 'weather_api@0.2.0 (prod)']);
  });

  it('a pubspec in the folder of a path package of the lock is that package, covered by the lock', async () => {
    const result = await buildThrough(pubEcosystem(null), fixtureSet(FIXTURES, 'flutter-sdk-and-path'));
    expect(result.inventory.roots).toHaveLength(1);
    expect(result.inventory.resolutions).toEqual([{ manifest: 'pubspec.yaml', outcome: 'lockfile', detail: null }]);
    // Its own dependencies are the path component's edges.
    expect(edgesFrom(result, 'weather_api')).toEqual(['collection@1.18.0 (prod)', 'http@1.2.2 (prod)', 'meta@1.15.0 (prod)']);
    const doc = JSON.parse((await analyze(fixtureSet(FIXTURES, 'flutter-sdk-and-path'), 'cyclonedx')).document) as {
      properties: { name: string; value: string }[];
      components: { name: string; properties?: { name: string; value: string }[] }[];
    };
    expect(doc.properties.find((p) => p.name === 'service:completeness')?.value).toBe('recorded_lockfile_inventory');
    const flutter = doc.components.find((c) => c.name === 'flutter');
    expect(flutter?.properties).toContainEqual({ name: 'service:sdk', value: 'flutter' });
  });
});
