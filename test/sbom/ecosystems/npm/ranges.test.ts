import fc from 'fast-check';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { quickSatisfies, rangeChecker } from '../../../../src/sbom/ecosystems/npm/ranges.js';

describe('the range check of npm lockfile edges', () => {
  it('decides every range and version as semver.satisfies with prereleases included', () => {
    const versions = ['0.0.0', '0.0.3', '0.0.4', '0.1.0', '0.2.3', '0.2.9', '0.3.0', '1.0.0', '1.2.2', '1.2.3', '1.2.10', '1.3.0', '1.9.9', '2.0.0', '2.0.0-rc.1', '1.2.3-beta.2', '10.20.30', '01.2.3', 'v1.2.3', 'not-a-version'];
    const cores = ['0.0.3', '0.0.0', '0.2.3', '0.1.0', '1.2.3', '1.0.0', '2.0.0', '10.20.30', '1.2.10'];
    const ranges = [
      ...cores.flatMap((c) => [c, `^${c}`, `~${c}`]),
      '^1.2.3-beta.1', '~1.2', '^1', '1.x', '*', '', '>=1.2.3 <2', '1.2.3 - 1.9.9', '^1.2.3 || ^2.0.0', '^01.2.3', 'latest', 'npm:other@^1.0.0', '=1.2.3', 'v1.2.3',
    ];
    const check = rangeChecker();
    for (const version of versions) {
      for (const range of ranges) {
        const expected = semver.valid(version) === null || semver.validRange(range) === null ? null : semver.satisfies(version, range, { includePrerelease: true });
        expect(check(version, range), `${version} in ${JSON.stringify(range)}`).toBe(expected);
      }
    }
  });

  it('decides what it decides without semver as semver does, for any comparator form and release version', () => {
    const num = fc.constantFrom(0, 1, 2, 3, 9, 10);
    const wildcard = fc.constantFrom('x', 'X', '*');
    const component = fc.oneof(num.map(String), wildcard);
    const partial = fc.oneof(
      component,
      fc.tuple(num, component).map(([a, b]) => `${a}.${b}`),
      fc.tuple(num, num, component).map(([a, b, c]) => `${a}.${b}.${c}`),
      fc.tuple(num, num, num, fc.constantFrom('-0', '-beta', '-rc.1', '-alpha.2.x')).map(([a, b, c, pre]) => `${a}.${b}.${c}${pre}`),
      fc.tuple(component, num, num).map(([a, b, c]) => `${a}.${b}.${c}`),
    );
    const comparator = fc.tuple(fc.constantFrom('', '=', '^', '~', '>=', '<=', '>', '<', '>= ', '< '), partial).map(([op, v]) => `${op}${v}`);
    const set = fc.array(comparator, { minLength: 1, maxLength: 3 }).map((cs) => cs.join(' '));
    const range = fc.array(set, { minLength: 1, maxLength: 3 }).map((sets) => sets.join(' || '));
    const version = fc.tuple(num, num, num).map(([a, b, c]) => `${a}.${b}.${c}`);
    let decided = 0;
    fc.assert(
      fc.property(version, range, (v, r) => {
        const quick = quickSatisfies(v, r);
        if (quick === undefined) return;
        decided++;
        expect(quick, `${v} in ${JSON.stringify(r)}`).toBe(semver.satisfies(v, r, { includePrerelease: true }));
      }),
      { numRuns: 5_000 },
    );
    // Most generated ranges are of the handled forms: the property is not vacuous.
    expect(decided).toBeGreaterThan(1_500);
  });
});
