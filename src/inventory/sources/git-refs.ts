/**
 * A remote's refs as `git ls-remote --symref` prints them, and which commit a requested ref names.
 */

export interface RemoteRefs {
  /** Branch HEAD points at (the default branch), when the remote says. */
  readonly head: string | null;
  readonly branches: ReadonlyMap<string, string>;
  /** Tags, peeled to the commit an annotated tag names. */
  readonly tags: ReadonlyMap<string, string>;
}

export type RefResolution =
  | { readonly kind: 'found'; readonly commit: string; readonly refName: string; readonly refKind: 'branch' | 'tag' | 'commit' }
  | { readonly kind: 'ambiguous'; readonly detail: string }
  | { readonly kind: 'not_found' }
  /** An abbreviated SHA matching no branch or tag tip: only the history can tell. */
  | { readonly kind: 'abbreviation' };

const FULL_SHA = /^[0-9a-f]{40}$/i;
const SHORT_SHA = /^[0-9a-f]{4,39}$/i;

export function parseLsRemote(text: string): RemoteRefs {
  let head: string | null = null;
  const branches = new Map<string, string>();
  const tags = new Map<string, string>();
  for (const line of text.split('\n')) {
    const symref = /^ref: refs\/heads\/(.+)\tHEAD$/.exec(line);
    if (symref?.[1]) {
      head = symref[1];
      continue;
    }
    const [sha, ref] = line.split('\t');
    if (!sha || !ref || !FULL_SHA.test(sha)) continue;
    if (ref.startsWith('refs/heads/')) branches.set(ref.slice(11), sha);
    else if (ref.startsWith('refs/tags/')) {
      const name = ref.slice(10);
      // `v1^{}` is the commit an annotated tag points at; it wins over the tag object.
      if (name.endsWith('^{}')) tags.set(name.slice(0, -3), sha);
      else if (!tags.has(name)) tags.set(name, sha);
    }
  }
  return { head, branches, tags };
}

/** Which commit a ref names: branch, tag (both must agree), full or abbreviated SHA. */
export function resolveRef(refs: RemoteRefs, ref: string | null): RefResolution {
  if (ref === null) {
    const head = refs.head ?? (refs.branches.has('main') ? 'main' : refs.branches.has('master') ? 'master' : null);
    const commit = head === null ? undefined : refs.branches.get(head);
    return head !== null && commit ? { kind: 'found', commit, refName: head, refKind: 'branch' } : { kind: 'not_found' };
  }
  const branch = refs.branches.get(ref);
  const tag = refs.tags.get(ref);
  if (branch && tag && branch !== tag) {
    return { kind: 'ambiguous', detail: `"${ref}" is both a branch (${branch.slice(0, 12)}) and a tag (${tag.slice(0, 12)}); ask for a commit` };
  }
  if (branch) return { kind: 'found', commit: branch, refName: ref, refKind: 'branch' };
  if (tag) return { kind: 'found', commit: tag, refName: ref, refKind: 'tag' };
  if (FULL_SHA.test(ref)) return { kind: 'found', commit: ref.toLowerCase(), refName: ref.toLowerCase(), refKind: 'commit' };
  if (SHORT_SHA.test(ref)) {
    const prefix = ref.toLowerCase();
    const tips = new Set([...refs.branches.values(), ...refs.tags.values()].filter((sha) => sha.startsWith(prefix)));
    if (tips.size > 1) return { kind: 'ambiguous', detail: `"${ref}" abbreviates ${tips.size} different commits` };
    const [only] = tips;
    if (only) return { kind: 'found', commit: only, refName: only, refKind: 'commit' };
    return { kind: 'abbreviation' };
  }
  return { kind: 'not_found' };
}
