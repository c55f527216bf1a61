import fc from 'fast-check';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { quickSatisfies, rangeChecker } from '../../../../src/ecosystems/npm/ranges.js';

describe('the range check of npm lockfile edges', () => {
  it('decides every range and version as semver.satisfies with prereleases included', () => {
    const versions = ['0.0.0', '0.0.3', '0.0.4', '0.1.0', '0.2.3', '0.2.9', '0.3.0', '1.0.0', '1.2.2', '1.2.3', '1.2.10', '1.3.0', '1.9.9', '2.0.0', '2.0.0-rc.1', '1.2.3-beta.2', '10.20.30', '01.2.3', 'v1.2.3', 'not-a-version'];
    const cores = ['0.0.3', '0.0.0', '0.2.3', '0.1.0', '1.2.3', '1.0.0', '2.0.0', '10.20.30', '1.2.10'];
    const ranges = [
      ...cores.flatMap((c) => [c, `^${c}`, `~${c}`]),
      '^1.2.3-beta.1', '~1.2', '^1', '1.x', '*', '', '>=1.2.3 <2', '1.2.3 - 1.9.9', '^1.2.3 || ^2.0.0', '^01.2.3', 'latest', 'npm:other@^1.0.0', '=1.2.3', 'v1.2.3',
    ];
    const check = rangeChecker();
    // Twice over: the second pass answers each pair from the checker's memo of verdicts.
    for (const pass of [1, 2]) {
      for (const version of versions) {
        for (const range of ranges) {
          const expected = semver.valid(version) === null || semver.validRange(range) === null ? null : semver.satisfies(version, range, { includePrerelease: true });
          expect(check(version, range), `pass ${pass}: ${version} in ${JSON.stringify(range)}`).toBe(expected);
        }
      }
    }
  });

  it('decides what it decides without semver as semver does, for any comparator form and version, prereleases included', () => {
    const num = fc.constantFrom(0, 1, 2, 3, 9, 10);
    const pre = fc.constantFrom('', '-0', '-1', '-beta', '-beta.1', '-beta.2', '-beta.10', '-alpha', '-rc.1', '-0.3', '-alpha.beta', '-1a', '-01', '-x.', '-a-b');
    const wildcard = fc.constantFrom('x', 'X', '*');
    const component = fc.oneof(num.map(String), wildcard);
    const partial = fc.oneof(
      component,
      fc.tuple(num, component).map(([a, b]) => `${a}.${b}`),
      fc.tuple(num, num, component).map(([a, b, c]) => `${a}.${b}.${c}`),
      fc.tuple(num, num, num, pre).map(([a, b, c, p]) => `${a}.${b}.${c}${p}`),
      fc.tuple(component, num, num).map(([a, b, c]) => `${a}.${b}.${c}`),
      fc.tuple(num, wildcard, pre).map(([a, b, p]) => `${a}.${b}${p}`),
    );
    const comparator = fc.tuple(fc.constantFrom('', '=', '^', '~', '>=', '<=', '>', '<', '>= ', '< '), partial).map(([op, v]) => `${op}${v}`);
    const set = fc.array(comparator, { minLength: 1, maxLength: 3 }).map((cs) => cs.join(' '));
    const range = fc.array(set, { minLength: 1, maxLength: 3 }).map((sets) => sets.join(' || '));
    const version = fc.tuple(num, num, num, pre).map(([a, b, c, p]) => `${a}.${b}.${c}${p}`);
    let decided = 0;
    fc.assert(
      fc.property(version, range, (v, r) => {
        const quick = quickSatisfies(v, r);
        if (quick === undefined) return;
        decided++;
        // Decided only for valid semver on both sides, and as semver decides.
        expect(semver.valid(v), v).not.toBeNull();
        expect(semver.validRange(r, { includePrerelease: true }), r).not.toBeNull();
        expect(quick, `${v} in ${JSON.stringify(r)}`).toBe(semver.satisfies(v, r, { includePrerelease: true }));
      }),
      { numRuns: 5_000 },
    );
    // Most generated ranges are of the handled forms: the property is not vacuous.
    expect(decided).toBeGreaterThan(1_000);
  });
});
