import pep440 from '@renovatebot/pep440';
import { describe, expect, it } from 'vitest';
import { VersionOrders } from '../../src/advisories/versions/index.js';

/** `versions` must be in ascending order by the ecosystem's rules; equal neighbours joined by `=`. */
function expectOrdered(ecosystem: string, type: 'SEMVER' | 'ECOSYSTEM', versions: readonly string[]): void {
  const order = new VersionOrders().for(ecosystem, type);
  expect(order).not.toBeNull();
  const list = versions.flatMap((v, i) => (v === '=' ? [] : [{ v, equalToPrevious: versions[i - 1] === '=' }]));
  for (let i = 1; i < list.length; i++) {
    const a = list[i - 1]?.v ?? '';
    const b = list[i]?.v ?? '';
    const expected = list[i]?.equalToPrevious ? 0 : -1;
    expect([a, b, order?.compare(a, b)]).toEqual([a, b, expected]);
    expect([b, a, order?.compare(b, a)]).toEqual([b, a, -expected || 0]);
  }
}

describe('version orders', () => {
  it('SemVer 2 precedence: pre-releases below their release, numeric identifiers numerically, build metadata ignored', () => {
    expectOrdered('npm', 'SEMVER', ['0.0.0-0', '1.0.0-0', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '=', '1.0.0+build.5', '1.2.0', '1.10.0', '10.0.0']);
    const order = new VersionOrders().for('npm', 'SEMVER');
    expect(order?.valid('1.0')).toBe(false);
    expect(order?.valid('v1.0.0')).toBe(false);
    expect(order?.compare('1.0', '1.0.0')).toBeNull();
  });

  it('Go: module versions with their v, pseudo-versions as pre-releases, +incompatible ignored', () => {
    expectOrdered('Go', 'SEMVER', ['0.0.0-20190125091013-d26f9f9a57f3', 'v0.0.0-20210520170846-37e1c6afe023', 'v0.1.0', '0.7.0', '=', 'v0.7.0', 'v1.22.0-0', '1.22.0-rc.1', 'v2.0.0+incompatible', '=', '2.0.0']);
  });

  it('PyPI: PEP 440 (dev < pre < release < post, 2.10 = 2.10.0, epochs)', () => {
    expectOrdered('PyPI', 'ECOSYSTEM', ['1.0.dev0', '1.0a1', '1.0b2', '1.0rc1', '1.0', '=', '1.0.0', '1.0.post1', '1.1', '2.10', '=', '2.10.0', '2.10.1', '1!0.1']);
  });

  it('PyPI keys order every pair as @renovatebot/pep440 compares them', () => {
    const versions = ['0', '1', '1.0', '1.0.0', '1.0.dev0', '1.0a0', '1.0a1.dev2', '1.0b1', '1.0rc1', '1.0c2', '1.0.post0', '1.0.post1.dev1', '1.0+local.1', '1.0+local.a', '1.0+2', '1!0.1', '2.10', '2.10.1', '2.7.post3', '0.13.3', '10.0.0a0'];
    const order = new VersionOrders().for('PyPI', 'ECOSYSTEM');
    for (const a of versions) for (const b of versions) expect([a, b, order?.compare(a, b)]).toEqual([a, b, Math.sign(pep440.compare(a, b))]);
  });

  it('Maven: ComparableVersion (qualifiers alpha < beta < milestone < rc < snapshot < release < sp, 2.4 = 2.4.0)', () => {
    expectOrdered('Maven', 'ECOSYSTEM', ['2.0-alpha1', '2.0-beta9', '2.0-rc1', '2.0-SNAPSHOT', '2.0', '=', '2.0.0', '2.0-sp1', '2.3.1', '2.4', '=', '2.4.0', '2.12.2', '2.13.0', '2.15.0']);
  });

  it('RubyGems: Gem::Version (a letter makes a pre-release: 1.13.4.rc1 < 1.13.4)', () => {
    expectOrdered('RubyGems', 'ECOSYSTEM', ['1.2', '1.10.0', '1.13.4.rc1', '1.13.4', '=', '1.13.4.0', '1.13.10']);
  });

  it('NuGet: four parts, missing ones 0, labels case-insensitive', () => {
    expectOrdered('NuGet', 'ECOSYSTEM', ['4.0', '=', '4.0.0.0', '12.0.3', '13.0.1-beta1', '=', '13.0.1-BETA1', '13.0.1', '13.0.1.1', '13.0.2']);
  });

  it('Packagist: Composer stabilities (dev < alpha < beta < RC < release < patch), v prefix', () => {
    expectOrdered('Packagist', 'ECOSYSTEM', ['6.5.6', '6.5.7-dev', '6.5.7-alpha1', '6.5.7-beta2', '6.5.7-RC1', '6.5.7', '=', 'v6.5.7', '=', '6.5.7.0', '6.5.7-p1', '7.4.4']);
    expect(new VersionOrders().for('Packagist', 'ECOSYSTEM')?.valid('dev-main')).toBe(false);
  });

  it('Pub, Hex and crates.io order by SemVer; GIT ranges and unknown ecosystems have no order', () => {
    expectOrdered('Hex', 'ECOSYSTEM', ['3.2.0-beta.1', '3.2.0-beta.3', '3.2.0']);
    expectOrdered('Pub', 'ECOSYSTEM', ['0.12.2', '0.13.3-nullsafety.0', '0.13.3']);
    expectOrdered('crates.io', 'ECOSYSTEM', ['0.1.44', '0.2.7', '0.2.23']);
    const orders = new VersionOrders();
    expect(orders.for('npm', 'GIT')).toBeNull();
    expect(orders.for('Debian', 'ECOSYSTEM')).toBeNull();
  });
});
