import semver from 'semver';
import { DomainError } from '../../../errors.js';
import { blockedIn } from '../../../net/address-policy.js';
import type { ListAvailableVersionType, ListIdentityType } from '../schemas.js';
import { RegistryMalformed, RegistryUnavailable } from '../../../ecosystems/shared/source-errors.js';
import type { PackageRegistry } from '../../../ecosystems/index.js';
import type { PackageSources } from '../../../ecosystems/shared/package-source.js';
import { safeRepositoryRoot } from '../../../ecosystems/shared/repo-url.js';
import type { InventoryRow } from '../../../inventory/store/records.js';
import type { PackageTarget } from '../../../inventory/targets.js';
import { BriefCache, estimate, notReady, NO_SITE_FIELDS, retryIfDue, settled, sourceStates, type ListerDeps } from './shared.js';
import type { Lister, ServedInventory, ServedView } from './types.js';

export function packageIdentity(registry: PackageRegistry, name: string, version: string): string {
  return `${registry}:${name}@${version}`;
}

/** Why a registry could not be asked, in words a caller can act on: its answer or the network's error code. */
function failureOf(error: Error): string {
  for (let cause: unknown = error.cause; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return `could not be reached (${code})`;
    const answered = /answered (\d{3})/.exec(cause.message);
    if (answered) return `failed (it answered ${answered[1]})`;
  }
  return 'failed or could not be reached';
}

/**
 * Package targets: resolve the version through the registry (exact versions already indexed
 * need no registry call), find or start the preparation of that version's inventory.
 */
export class PackageLister implements Lister<PackageTarget> {
  /** Indexed versions per package, briefly: a version prepared meanwhile shows up within seconds. */
  private readonly versions = new BriefCache<ListAvailableVersionType[]>(5_000);

  constructor(
    private readonly deps: ListerDeps,
    private readonly sources: PackageSources,
  ) {}

  private async inventory(target: PackageTarget): Promise<InventoryRow> {
    const exact = target.spec !== null && semver.valid(target.spec) === target.spec ? packageIdentity(target.registry, target.name, target.spec) : null;
    const known = exact === null ? null : await this.deps.ready.load(this.deps.store, exact);
    if (known) return known;
    const source = this.sources[target.registry];
    if (source === undefined) throw new DomainError('LIST_UNSUPPORTED_API', `The ${target.registry} registry is not configured on this service.`);
    let lookup;
    try {
      lookup = await source.lookup(target.name, target.spec);
    } catch (error) {
      if (error instanceof RegistryUnavailable) {
        if (blockedIn(error) !== null) throw new DomainError('LIST_UNSUPPORTED_API', 'The registry pointed this request at a non-public address, which the service does not fetch.');
        throw error.timedOut
          ? new DomainError('TIMEOUT', `The ${target.registry} registry did not answer in time; try again.`)
          : new DomainError('REGISTRY_UNAVAILABLE', `The ${target.registry} registry ${failureOf(error)}; try again later.`);
      }
      if (error instanceof RegistryMalformed) throw new DomainError('LIST_UNSUPPORTED_API', 'The registry answered with a package document this service cannot read.');
      throw error;
    }
    if (lookup.kind === 'no_package') throw new DomainError('LIST_TARGET_NOT_FOUND', `The registry has no package ${target.name}.`);
    if (lookup.kind === 'no_version') throw new DomainError('LIST_TARGET_NOT_FOUND', `No version of ${target.name} matches ${target.spec ?? 'latest'}.`);
    const { version } = lookup;
    const ensured = await this.deps.store.ensure({
      kind: 'package',
      identity: packageIdentity(target.registry, target.name, version.version),
      registry: target.registry,
      packageName: target.name,
      version: version.version,
      facts: { tarball: version.tarball, integrity: version.integrity, unpackedSize: version.unpackedSize, fileCount: version.fileCount },
    });
    if (ensured.created) await this.deps.enqueue(ensured.row);
    return ensured.row;
  }

  async resolve(target: PackageTarget, waitMs: number): Promise<ServedView> {
    let row = await retryIfDue(this.deps, await this.inventory(target));
    if (!settled(row) && waitMs > 0) row = (await this.deps.wait(row, waitMs, settled)).row;
    return this.view(target, row);
  }

  async view(target: PackageTarget, row: InventoryRow, _pin: string | null = null): Promise<ServedView> {
    const version = row.version ?? '';
    const canonical = packageIdentity(target.registry, target.name, version);
    // The registry's repository field as a plain https root (no git+, .git or credentials).
    const repoUrl = safeRepositoryRoot(row.facts.repoUrl ?? null);
    if (row.state === 'unavailable') {
      const extras: Record<string, string> = {};
      if (repoUrl !== null) extras['repo_url'] = repoUrl;
      if (row.facts.gitHead) extras['commit_sha'] = row.facts.gitHead;
      throw new DomainError(
        'SOURCE_INVENTORY_SCOPE_UNAVAILABLE',
        `The tarball of ${canonical} is not available, so its files cannot be listed. A pinned repository target covers a broader scope.`,
        { extras },
      );
    }
    const ready = row.state === 'ready';
    // A version newly seen ready joins the package's indexed versions at once (in this process).
    if (this.deps.ready.remember(row) && row.packageName !== null) this.versions.delete(`${target.registry}:${row.packageName}`);
    const identity: ListIdentityType = {
      kind: null,
      registry: target.registry,
      package_name: target.name,
      version,
      repo_url: repoUrl,
      git_ref: null,
      commit_sha: row.facts.gitHead ?? null,
    };
    const versions = this.versions.get(`${target.registry}:${target.name}`, async () =>
      (await this.deps.store.readyVersions(target.registry, target.name)).map((v) => ({ version: v, ref: v })),
    );
    const available = await versions.value;
    const working = row.state === 'pending' || row.state === 'preparing';
    const { code, status } = sourceStates(row);
    return {
      inventoryKind: 'source',
      row: ready ? row : null,
      canonicalTarget: canonical,
      actionTarget: canonical,
      served: ready ? identity : null,
      cacheable: ready,
      generation: '',
      pin: null,
      stamp: String(versions.stamp),
      fields: {
        indexed_version: ready ? version : null,
        resolution: { requested_version: target.spec, requested_ref: null, resolved_ref: ready ? version : null, commit_sha: row.facts.gitHead ?? null },
        target_resolution: {
          requested: { kind: 'package', registry: target.registry, package_name: target.name, version: target.spec, repo_url: null, git_ref: null, commit_sha: null },
          resolved_requested: identity,
          served: ready ? identity : null,
          freshness: code,
          freshness_reason: row.state === 'failed' ? row.failure : null,
          indexing_ref: working ? row.id : null,
          available_versions: available,
          available_refs: [],
          suggested_refs: [],
        },
        code_index_state: code,
        indexing_status: status,
        indexing_ref: working ? row.id : null,
        available_versions: available,
        indexing_estimate: working ? await estimate(this.deps.store, 'package', row) : null,
        ...NO_SITE_FIELDS,
      },
    };
  }

  async readable(target: PackageTarget): Promise<ServedInventory> {
    const row = await retryIfDue(this.deps, await this.inventory(target));
    const view = await this.view(target, row);
    if (view.row === null || view.served === null) throw notReady(view.canonicalTarget ?? target.text, row);
    return { ...view, row: view.row, served: view.served };
  }
}
