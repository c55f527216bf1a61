import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { rangeChecker } from '../../../../src/sbom/ecosystems/npm/ranges.js';

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
});
