import { DomainError } from '../../../errors.js';
import type { ListAvailableVersionType, ListIdentityType } from '../schemas.js';
import { GitError, type GitSource } from '../../../inventory/sources/git.js';
import { resolveRef, type RemoteRefs } from '../../../inventory/sources/git-refs.js';
import { remoteFailure } from '../../../inventory/sources/git-failure.js';
import type { InventoryRow } from '../../../inventory/store/records.js';
import type { RepositoryTarget } from '../../../inventory/targets.js';
import { BriefCache, estimate, notReady, NO_SITE_FIELDS, retryIfDue, settled, sourceStates, type ListerDeps } from './shared.js';
import type { Lister, ServedInventory, ServedView } from './types.js';

/** `github:owner/repo`: the repository part of a target, which ref pointers are kept under. */
export function repositoryKey(target: RepositoryTarget): string {
  return `${target.host}:${target.owner}/${target.repo}`;
}

interface Located {
  readonly url: string;
  readonly commit: string;
  readonly refName: string;
  readonly refKind: 'branch' | 'tag' | 'commit';
  readonly refs: RemoteRefs | null;
}

const FULL_SHA = /^[0-9a-f]{40}$/i;

/** What the refs said when page one was made: the inventory the ref resolved to and the ref's name. */
interface Pin {
  readonly resolved: string;
  readonly ref: string;
}

function readPin(pin: string | null): Pin | null {
  if (pin === null) return null;
  const parsed = JSON.parse(pin) as Partial<Pin>;
  return typeof parsed.resolved === 'string' && typeof parsed.ref === 'string' ? { resolved: parsed.resolved, ref: parsed.ref } : null;
}

/**
 * Repository targets: refs resolved with `git ls-remote` (branch, tag, full or abbreviated
 * commit, default branch), one inventory per commit. A branch that moved since it was indexed
 * is served from the commit it was indexed at (`stale`) while the new commit is prepared; no
 * partial snapshot is ever served (`provisional` is not used).
 */
export class RepositoryLister implements Lister<RepositoryTarget> {
  /** Ref pointers known to be current here (`repository\0ref` → inventory id): written once. */
  private readonly pointers = new Map<string, string>();
  /** Indexed refs per repository, briefly (they change only as preparations finish). */
  private readonly indexed = new BriefCache<{ ref: string; commit: string }[]>(5_000);

  constructor(
    private readonly deps: ListerDeps,
    private readonly git: GitSource,
  ) {}

  /** A ref seen at a ready commit points at it, so the ref is listed as indexed and served stale once it moves. */
  private async pointRef(repository: string, ref: string, row: InventoryRow): Promise<void> {
    const key = `${repository}\u0000${ref}`;
    if (this.pointers.get(key) === row.id) return;
    await this.deps.store.setRefPointer(repository, ref, row.id, row.facts.commit ?? '');
    if (this.pointers.size > 10_000) this.pointers.clear();
    this.pointers.set(key, row.id);
    this.indexed.delete(repository);
  }

  private async locate(target: RepositoryTarget): Promise<Located> {
    try {
      return await this.locateOnHost(target);
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      // Only a host that says so makes a target "not found"; trouble reaching it is the host's.
      if (remoteFailure(error) === 'timeout') throw new DomainError('TIMEOUT', 'The repository host did not answer in time; try again.');
      throw new DomainError('LIST_UNSUPPORTED_API', 'The repository host failed or could not be reached; try again later.');
    }
  }

  private async locateOnHost(target: RepositoryTarget): Promise<Located> {
    const url = this.git.repoUrl(target.host, target.owner, target.repo);
    const refs = await this.git.refs(url);
    if (refs === null) throw new DomainError('LIST_TARGET_NOT_FOUND', `Repository ${repositoryKey(target)} does not exist or cannot be read.`);
    let resolution = resolveRef(refs, target.ref);
    if (refs.truncated === true && (resolution.kind === 'not_found' || resolution.kind === 'abbreviation')) {
      // Past the refs read, only the remote can tell: ask it for this name alone.
      if (resolution.kind === 'abbreviation') {
        throw new DomainError('LIST_TARGET_NOT_FOUND', `${repositoryKey(target)} has too many refs to look an abbreviated commit up; ask for the full commit SHA.`);
      }
      const named = await this.git.namedRefs(url, target.ref);
      if (named !== null) resolution = resolveRef(named, target.ref);
    }
    if (resolution.kind === 'abbreviation' && target.ref !== null) resolution = await this.git.resolveAbbreviation(url, target.ref);
    // A full SHA is taken at its word by resolveRef (an abbreviation was found in the history).
    const pinned = target.ref !== null && FULL_SHA.test(target.ref);
    if (resolution.kind === 'found' && pinned && !(await this.commitKnown(target, refs, resolution.commit, url))) {
      resolution = { kind: 'not_found' };
    }
    switch (resolution.kind) {
      case 'found':
        return { url, commit: resolution.commit, refName: resolution.refName, refKind: resolution.refKind, refs };
      case 'ambiguous':
        throw new DomainError('AMBIGUOUS_REF', `${resolution.detail}; an exact commit selects one snapshot.`);
      default:
        throw new DomainError('LIST_TARGET_NOT_FOUND', `${repositoryKey(target)} has no ref ${JSON.stringify(target.ref ?? 'HEAD')}.`);
    }
  }

  /**
   * Whether a pinned commit exists: a branch or tag tip, a commit already admitted here (its
   * inventory tells what became of it), or one the host hands out when asked for it.
   */
  private async commitKnown(target: RepositoryTarget, refs: RemoteRefs, commit: string, url: string): Promise<boolean> {
    for (const tip of [...refs.branches.values(), ...refs.tags.values()]) if (tip === commit) return true;
    if ((await this.deps.store.byIdentity(`${repositoryKey(target)}@${commit}`)) !== null) return true;
    return this.git.hasCommit(url, commit);
  }

  private async inventory(target: RepositoryTarget, located: Located): Promise<InventoryRow> {
    const repository = repositoryKey(target);
    const known = await this.deps.ready.load(this.deps.store, `${repository}@${located.commit}`);
    if (known !== null) return retryIfDue(this.deps, known);
    const ensured = await this.deps.store.ensure({
      kind: 'repository',
      identity: `${repository}@${located.commit}`,
      facts: { repoUrl: located.url, commit: located.commit, repository, ref: located.refName },
    });
    if (ensured.created) await this.deps.enqueue(ensured.row);
    return retryIfDue(this.deps, ensured.row);
  }

  async resolve(target: RepositoryTarget, waitMs: number): Promise<ServedView> {
    // A pinned commit already indexed needs no remote.
    if (target.ref !== null && FULL_SHA.test(target.ref)) {
      const known = await this.deps.ready.load(this.deps.store, `${repositoryKey(target)}@${target.ref.toLowerCase()}`);
      if (known?.state === 'ready') return this.view(target, known, null);
    }
    const located = await this.locate(target);
    let row = await this.inventory(target, located);
    if (!settled(row) && waitMs > 0) row = (await this.deps.wait(row, waitMs, settled)).row;
    let served = row.state === 'ready' ? row : null;
    if (served !== null && located.refKind !== 'commit') await this.pointRef(repositoryKey(target), located.refName, served);
    // A moved branch: serve what it was indexed at, marked stale, while the new commit is prepared.
    if (served === null && located.refKind === 'branch') served = await this.deps.store.refPointer(repositoryKey(target), located.refName);
    return this.describe(target, row, served, located);
  }

  /**
   * A continuation: the served snapshot the cursor pinned, described with page one's resolution
   * (a moved branch stays `stale` and keeps its resolved commit). Ref suggestions are re-read
   * from the remote when it answers (they are hints, never a reason to fail a page).
   */
  async view(target: RepositoryTarget, row: InventoryRow, pin: string | null): Promise<ServedView> {
    const served = row.state === 'ready' ? row : null;
    const pinned = readPin(pin);
    if (pinned === null) return this.describe(target, row, served, null);
    const resolved = pinned.resolved === row.id ? row : ((await this.deps.store.get(pinned.resolved)) ?? row);
    const refs = await this.git.refs(this.git.repoUrl(target.host, target.owner, target.repo)).catch(() => null);
    return this.describe(target, resolved, served, { refName: pinned.ref, refs });
  }

  async readable(target: RepositoryTarget): Promise<ServedInventory> {
    const view = await this.resolve(target, 0);
    if (view.row === null || view.served === null) {
      const known = await this.deps.store.byIdentity(view.canonicalTarget ?? '');
      throw known ? notReady(view.canonicalTarget ?? target.text, known) : new DomainError('TARGET_NOT_READY', `${target.text} is being prepared.`);
    }
    return { ...view, row: view.row, served: view.served };
  }

  private async describe(
    target: RepositoryTarget,
    resolved: InventoryRow,
    served: InventoryRow | null,
    located: Pick<Located, 'refName' | 'refs'> | null,
  ): Promise<ServedView> {
    const repository = repositoryKey(target);
    const resolvedCommit = resolved.facts.commit ?? '';
    const stale = served !== null && served.id !== resolved.id;
    const identity = (row: InventoryRow, ref: string | null): ListIdentityType => ({
      kind: null,
      registry: null,
      package_name: null,
      version: null,
      repo_url: row.facts.repoUrl ?? null,
      git_ref: ref,
      commit_sha: row.facts.commit ?? null,
    });
    const servedIdentity = served === null ? null : identity(served, served.facts.ref ?? null);
    const refs = this.indexed.get(repository, () => this.deps.store.indexedRefs(repository));
    const indexed = await refs.value;
    const available: ListAvailableVersionType[] = indexed.map((r) => ({ version: null, ref: r.ref }));
    const indexedNames = new Set(indexed.map((r) => r.ref));
    // A branch and a tag of one name are one suggestion.
    const suggested: ListAvailableVersionType[] = located?.refs
      ? [...new Set([...located.refs.branches.keys(), ...located.refs.tags.keys()])]
          .filter((ref) => !indexedNames.has(ref))
          .slice(0, 20)
          .map((ref) => ({ version: null, ref }))
      : [];
    const working = resolved.state === 'pending' || resolved.state === 'preparing';
    const states = sourceStates(served ?? resolved, stale);
    const indexing = sourceStates(resolved);
    const servedRef = served?.facts.ref ?? null;
    return {
      inventoryKind: 'source',
      row: served,
      canonicalTarget: `${repository}@${resolvedCommit}`,
      actionTarget: `${repository}@${served?.facts.commit ?? resolvedCommit}`,
      served: servedIdentity,
      cacheable: served !== null && !stale,
      generation: '',
      pin: located === null ? null : JSON.stringify({ resolved: resolved.id, ref: located.refName } satisfies Pin),
      stamp: `${stale ? resolved.id : ''}:${refs.stamp}`,
      fields: {
        indexed_version: served === null ? null : (target.ref === null || stale ? servedRef : target.ref),
        resolution: {
          requested_version: null,
          requested_ref: target.ref,
          resolved_ref: served === null ? null : (located?.refName ?? servedRef),
          commit_sha: served?.facts.commit ?? null,
        },
        target_resolution: {
          requested: { kind: 'repository', registry: null, package_name: null, version: null, repo_url: resolved.facts.repoUrl ?? null, git_ref: target.ref, commit_sha: null },
          resolved_requested: identity(resolved, located?.refName ?? resolved.facts.ref ?? null),
          served: servedIdentity,
          freshness: states.code,
          freshness_reason: stale
            ? `${JSON.stringify(servedRef)} moved to ${resolvedCommit.slice(0, 12)}; serving ${String(served.facts.commit).slice(0, 12)} while it is prepared`
            : resolved.state === 'failed'
              ? resolved.failure
              : null,
          indexing_ref: working ? resolved.id : null,
          available_versions: [],
          available_refs: available,
          suggested_refs: suggested,
        },
        code_index_state: states.code,
        indexing_status: indexing.status,
        indexing_ref: working ? resolved.id : null,
        available_versions: available,
        indexing_estimate: working ? await estimate(this.deps.store, 'repository', resolved) : null,
        ...NO_SITE_FIELDS,
      },
    };
  }
}
