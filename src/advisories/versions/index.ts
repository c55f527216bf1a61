/**
 * The version orders OSV ranges are evaluated in: `SEMVER` ranges by SemVer 2 precedence in every
 * ecosystem, `ECOSYSTEM` ranges by the ecosystem's own order. Each comparator parses a version once
 * (per comparator: one per match run, never process-wide) and answers null for a version its
 * order cannot read, which the matcher treats as "not comparable" (no range match).
 */
import { Version as RubyVersion } from '@renovatebot/ruby-semver/dist/ruby/version.js';
import { compareMavenVersions } from '../../ecosystems/maven/version.js';
import { compareComposer, parseComposer } from './composer.js';
import { compareNuget, parseNuget } from './nuget.js';
import { comparePep440, parsePep440 } from './pep440.js';
import { compareSemver, parseSemver, type SemVer } from './semver.js';

export interface VersionComparator {
  /** Whether `version` is a version of this order. */
  readonly valid: (version: string) => boolean;
  /** The order of two versions (negative, 0, positive), null when either is not a version of it. */
  readonly compare: (a: string, b: string) => number | null;
}

interface Order<K> {
  readonly parse: (version: string) => K | null;
  readonly compare: (a: K, b: K) => number;
}

function comparator<K>(order: Order<K>): VersionComparator {
  const parsed = new Map<string, K | null>();
  const key = (version: string): K | null => {
    let k = parsed.get(version);
    if (k === undefined) {
      k = order.parse(version);
      parsed.set(version, k);
    }
    return k;
  };
  return {
    valid: (version) => key(version) !== null,
    compare: (a, b) => {
      const ka = key(a);
      const kb = key(b);
      return ka === null || kb === null ? null : order.compare(ka, kb);
    },
  };
}

/** Go module versions carry a `v` that OSV's Go records leave out (`v0.17.0` is `0.17.0`). */
const goSemver: Order<SemVer> = {
  parse: (v) => parseSemver(v.startsWith('v') ? v.slice(1) : v),
  compare: compareSemver,
};
const semver: Order<SemVer> = { parse: parseSemver, compare: compareSemver };

const pypi = { parse: parsePep440, compare: comparePep440 };

const maven: Order<string> = {
  parse: (v) => (v.length > 0 && v.length <= 256 ? v : null),
  compare: compareMavenVersions,
};

const rubygems: Order<RubyVersion> = {
  parse: (v) => (v.length <= 256 && RubyVersion.isCorrect(v) ? RubyVersion.create(v) : null),
  compare: (a, b) => Math.sign(a.compare(b)),
};

const ECOSYSTEM_ORDERS: Readonly<Record<string, () => VersionComparator>> = {
  npm: () => comparator(semver),
  'crates.io': () => comparator(semver),
  Pub: () => comparator(semver),
  Hex: () => comparator(semver),
  SwiftURL: () => comparator(goSemver),
  Go: () => comparator(goSemver),
  PyPI: () => comparator(pypi),
  Maven: () => comparator(maven),
  RubyGems: () => comparator(rubygems),
  NuGet: () => comparator({ parse: parseNuget, compare: compareNuget }),
  Packagist: () => comparator({ parse: parseComposer, compare: compareComposer }),
};

/** The comparators one match run uses, made on first use. */
export class VersionOrders {
  private readonly made = new Map<string, VersionComparator | null>();
  private readonly semverFor = new Map<string, VersionComparator | null>();
  private readonly ecosystemFor = new Map<string, VersionComparator | null>();

  /**
   * The order of a range of `type` in OSV `ecosystem`: SemVer for `SEMVER` (Go's and Swift's
   * versions read without their `v`), the ecosystem's own for `ECOSYSTEM`; null for `GIT` and for
   * an ecosystem with no known order.
   */
  for(ecosystem: string, type: string): VersionComparator | null {
    // The two common types without a key string per call (this runs once per range and version).
    const held = type === 'ECOSYSTEM' ? this.ecosystemFor : type === 'SEMVER' ? this.semverFor : null;
    const quick = held?.get(ecosystem);
    if (quick !== undefined) return quick;
    const key = `${type}\u0000${ecosystem}`;
    let made = this.made.get(key);
    if (made === undefined) {
      if (type === 'SEMVER') made = comparator(ecosystem === 'Go' || ecosystem === 'SwiftURL' ? goSemver : semver);
      else if (type === 'ECOSYSTEM') made = ECOSYSTEM_ORDERS[ecosystem]?.() ?? null;
      else made = null;
      this.made.set(key, made);
    }
    held?.set(ecosystem, made);
    return made;
  }
}
