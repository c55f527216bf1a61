/**
 * A remote's refs as `git ls-remote --symref` prints them, and which commit a requested ref names.
 */

export interface RemoteRefs {
  /** Branch HEAD points at (the default branch), when the remote says. */
  readonly head: string | null;
  readonly branches: ReadonlyMap<string, string>;
  /** Tags, peeled to the commit an annotated tag names. */
  readonly tags: ReadonlyMap<string, string>;
  /** The host advertised more refs than are read: a ref missing here may still exist. */
  readonly truncated?: boolean;
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
  const parser = new LsRemoteParser(Number.POSITIVE_INFINITY);
  parser.push(Buffer.from(text, 'utf8'));
  return parser.end();
}

/** Longest line `ls-remote` prints for a ref kept: a SHA, a tab and a ref name git would accept. */
const MAX_LINE_BYTES = 4096;

/**
 * `git ls-remote --symref` output read as it arrives, chunk by chunk (each costs the event loop
 * one pass over its lines, never the whole listing at once), up to `maxRefs` lines; past them the
 * listing is marked truncated and `push` answers false so the caller stops the command.
 */
export class LsRemoteParser {
  private head: string | null = null;
  private readonly branches = new Map<string, string>();
  private readonly tags = new Map<string, string>();
  private partial = '';
  private lines = 0;
  private truncated = false;

  constructor(private readonly maxRefs: number) {}

  push(chunk: Buffer): boolean {
    if (this.truncated) return false;
    const text = this.partial + chunk.toString('utf8');
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      this.line(text.slice(start, end));
      start = end + 1;
      if (++this.lines > this.maxRefs) {
        this.truncated = true;
        return false;
      }
    }
    this.partial = text.slice(start);
    // A line longer than any ref git accepts is no listing this parser keeps reading.
    if (this.partial.length > MAX_LINE_BYTES) {
      this.truncated = true;
      return false;
    }
    return true;
  }

  end(): RemoteRefs {
    if (!this.truncated && this.partial !== '') this.line(this.partial);
    this.partial = '';
    return { head: this.head, branches: this.branches, tags: this.tags, truncated: this.truncated };
  }

  private line(line: string): void {
    const symref = /^ref: refs\/heads\/(.+)\tHEAD$/.exec(line);
    if (symref?.[1]) {
      this.head = symref[1];
      return;
    }
    const [sha, ref] = line.split('\t');
    if (!sha || !ref || !FULL_SHA.test(sha)) return;
    // HEAD's own line follows its symref: the default branch's commit, should its line be past the refs read.
    if (ref === 'HEAD' && this.head !== null && !this.branches.has(this.head)) this.branches.set(this.head, sha);
    else if (ref.startsWith('refs/heads/')) this.branches.set(ref.slice(11), sha);
    else if (ref.startsWith('refs/tags/')) {
      const name = ref.slice(10);
      // `v1^{}` is the commit an annotated tag points at; it wins over the tag object.
      if (name.endsWith('^{}')) this.tags.set(name.slice(0, -3), sha);
      else if (!this.tags.has(name)) this.tags.set(name, sha);
    }
  }
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
