/** Registry facts about one package version (a coordinate), merged over what the lockfile gave. */
export interface PackageMetadata {
  readonly license: string | null;
  readonly description: string | null;
  readonly homepage: string | null;
  readonly repository: string | null;
  readonly author: string | null;
  readonly deprecated: string | null;
}

export const EMPTY_METADATA: PackageMetadata = {
  license: null,
  description: null,
  homepage: null,
  repository: null,
  author: null,
  deprecated: null,
};

export function coordinateKey(name: string, version: string): string {
  return `${name}@${version}`;
}
