/**
 * The configurable registries: each `PACKAGE_REGISTRIES` key with the public origin it stands in
 * for, in the order of the ecosystems that read them (src/ecosystems/index.ts). Data only, so that
 * configuration reads it without loading any ecosystem's code; each registration names its keys
 * from here (`registryDefault`).
 */
export const DEFAULT_PACKAGE_REGISTRIES = {
  go: 'https://proxy.golang.org',
  pypi: 'https://pypi.org',
  crates: 'https://crates.io',
  maven: 'https://repo.maven.apache.org/maven2',
  rubygems: 'https://rubygems.org',
  packagist: 'https://repo.packagist.org',
  cocoapods: 'https://cdn.cocoapods.org',
  hex: 'https://hex.pm',
  hex_repo: 'https://repo.hex.pm',
  pub: 'https://pub.dev',
  nuget: 'https://api.nuget.org/v3/index.json',
} as const;

/** Keys of `PACKAGE_REGISTRIES`. */
export type RegistryKey = keyof typeof DEFAULT_PACKAGE_REGISTRIES;

export const REGISTRY_KEYS = Object.keys(DEFAULT_PACKAGE_REGISTRIES) as readonly RegistryKey[];

/** A registration's registry: its key and the public origin it defaults to. */
export function registryDefault<const K extends RegistryKey>(key: K): { readonly key: K; readonly base: (typeof DEFAULT_PACKAGE_REGISTRIES)[K] } {
  return { key, base: DEFAULT_PACKAGE_REGISTRIES[key] };
}
