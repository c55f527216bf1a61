/**
 * Cargo source ids as Cargo.lock writes them (`registry+<index>`, `sparse+<index>`,
 * `git+<url>?<ref>#<commit>`, `path+file://…`, `local-registry+…`, `directory+…`).
 */

/** The two spellings of the crates.io index. */
export const CRATES_IO_SOURCES: ReadonlySet<string> = new Set([
  'registry+https://github.com/rust-lang/crates.io-index',
  'sparse+https://index.crates.io/',
]);

export interface SourceKind {
  /** `path`: no source (a workspace member or a path dependency; the caller tells which). */
  readonly source: 'registry' | 'git' | 'tarball' | 'file' | 'path';
  /** The URL to record for an entry of this source. */
  resolved(name: string, version: string): string | null;
  readonly facts: Readonly<Record<string, string>>;
}

/** Where crates.io serves a crate's archive (the component's distribution reference). */
export function cratesIoDownload(name: string, version: string): string {
  return `https://crates.io/api/v1/crates/${encodeURIComponent(name)}/${encodeURIComponent(version)}/download`;
}

const PATH: SourceKind = { source: 'path', resolved: () => null, facts: {} };

/**
 * crates.io crates are `registry` (enriched from crates.io). A crate of another registry is
 * recorded as `tarball`, with its index in facts: it must not be enriched from crates.io, where
 * the same name may be another crate.
 */
export function classifySource(source: string | null): SourceKind {
  if (source === null) return PATH;
  if (CRATES_IO_SOURCES.has(source)) {
    return { source: 'registry', resolved: cratesIoDownload, facts: {} };
  }
  const plus = source.indexOf('+');
  const scheme = plus < 0 ? '' : source.slice(0, plus);
  if (scheme === 'git') return { source: 'git', resolved: () => source, facts: {} };
  if (scheme === 'registry' || scheme === 'sparse') {
    return { source: 'tarball', resolved: () => null, facts: { registry: source.slice(plus + 1) } };
  }
  // path+, local-registry+, directory+ and anything unknown: files on the builder's disk.
  return { source: 'file', resolved: () => source, facts: {} };
}

/**
 * What two spellings of one source have in common: dependency strings drop the commit fragment
 * of git sources, and v4 percent-encodes their query where older versions did not.
 */
export function sourceIdentity(source: string): string {
  const hash = source.indexOf('#');
  const bare = hash < 0 ? source : source.slice(0, hash);
  try {
    return decodeURIComponent(bare);
  } catch {
    return bare;
  }
}

export interface GitSource {
  /** The repository URL without `git+`, query or fragment. */
  readonly url: string;
  /** The commit Cargo locked (the fragment), else the `rev` asked for. */
  readonly commit: string | null;
}

export function gitSource(source: string): GitSource | null {
  if (!source.startsWith('git+')) return null;
  const rest = source.slice(4);
  const hash = rest.indexOf('#');
  const beforeHash = hash < 0 ? rest : rest.slice(0, hash);
  const query = beforeHash.indexOf('?');
  const url = query < 0 ? beforeHash : beforeHash.slice(0, query);
  let commit = hash < 0 ? null : rest.slice(hash + 1);
  if ((commit === null || commit === '') && query >= 0) {
    commit = new URLSearchParams(beforeHash.slice(query + 1)).get('rev');
  }
  return { url, commit: commit === '' ? null : commit };
}
