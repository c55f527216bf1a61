/**
 * OSV's ecosystem names for the purl types pkgscope's analysis builds, and the name
 * normalisation each ecosystem's advisories are keyed by (both the store's index and the
 * matcher's lookups go through `normalizeName`).
 */

/** OSV ecosystem names (as OSV spells them, also the folder names of its bulk layout) by purl type. */
export const OSV_ECOSYSTEM_BY_PURL_TYPE: Readonly<Record<string, string>> = {
  npm: 'npm',
  pypi: 'PyPI',
  cargo: 'crates.io',
  golang: 'Go',
  maven: 'Maven',
  gem: 'RubyGems',
  nuget: 'NuGet',
  composer: 'Packagist',
  pub: 'Pub',
  hex: 'Hex',
  swift: 'SwiftURL',
};

/** Every OSV ecosystem pkgscope can match, in the order `ADVISORY_ECOSYSTEMS` defaults to. */
export const OSV_ECOSYSTEMS: readonly string[] = Object.values(OSV_ECOSYSTEM_BY_PURL_TYPE);

/**
 * The key an advisory's `affected[].package.name` and a component's name are compared by:
 * PEP 503 for PyPI (lower case, runs of `-_.` as one `-`); lower case for the registries whose
 * names are case-insensitive (NuGet, Packagist, Hex, Pub, crates.io keeps case but its registry
 * treats `-`/`_` alike is NOT applied: OSV names crates exactly); Maven `group:artifact` as is;
 * Go module paths as is; npm as is (names are lower case by rule).
 */
export function normalizeName(ecosystem: string, name: string): string {
  switch (ecosystem) {
    case 'PyPI':
      return name.toLowerCase().replace(/[-_.]+/g, '-');
    case 'NuGet':
    case 'Packagist':
    case 'Hex':
    case 'Pub':
      return name.toLowerCase();
    case 'SwiftURL':
      return name.toLowerCase().replace(/\.git$/, '').replace(/^https?:\/\//, '');
    default:
      return name;
  }
}
