import { describe, expect, it } from 'vitest';
import { analyze } from '../../../../src/sbom/analyze.js';
import { cocoapodsEcosystem } from '../../../../src/ecosystems/cocoapods/analysis.js';
import { buildThrough, components } from '../../../helpers/ecosystem.js';
import { fixtureSet } from '../fixture-set.js';

/** Podfile.lock rules a React Native app exercises, on a fixture shaped like what `pod install` writes. */

const FIXTURES = new URL('./fixtures/', import.meta.url);

describe('Podfile.lock rules', () => {
  it(':path and :podspec pods are local components (no trunk purl), :git pods carry vcs_url; neither is enriched from the trunk', async () => {
    const eco = cocoapodsEcosystem(null);
    const files = fixtureSet(FIXTURES, 'react-native-external');
    const result = await buildThrough(eco, files);
    expect(result.problems).toEqual([]);
    expect(components(result).map((o) => `${o.name} ${o.source} ${eco.purl(o) ?? '-'}`)).toEqual([
      'boost file -',
      'DoubleConversion file -',
      'MMKV git pkg:cocoapods/MMKV@1.3.9?vcs_url=git%2Bhttps%3A%2F%2Fgithub.com%2FTencent%2FMMKV.git%407fb2b1ab6a1b8c0b7c1d0d0a6bb3d4e8c2f1a9e0',
      'MMKVCore registry pkg:cocoapods/MMKVCore@1.3.9',
      'RCT-Folly file -',
      'RCT-Folly/Default file -',
      'React-Core file -',
      'React-Core/Default file -',
      'RNScreens file -',
      'SDWebImage registry pkg:cocoapods/SDWebImage@5.19.4',
      'SDWebImage/Core registry pkg:cocoapods/SDWebImage@5.19.4#Core',
    ]);
    // Only the trunk's pods are coordinates to enrich.
    const analysed = await analyze(files, 'cyclonedx');
    expect(analysed.counts.coordinates_total).toBe(3);
  });
});
