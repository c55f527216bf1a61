import { DomainError } from '../../../errors.js';
import type { ListIdentityType, ListResponseType } from '../schemas.js';
import type { InventoryRow } from '../../../inventory/store/records.js';
import type { SiteTarget } from '../../../inventory/targets.js';
import { retryIfDue, settled, type ListerDeps } from './shared.js';
import type { Lister, ServedInventory, ServedView } from './types.js';

type Preparation = NonNullable<ListResponseType['preparation']>;
type WaitOutcome = Preparation['awaited'][number]['outcome'];

/** A site has something to list once a page is stored, whatever its crawl is doing. */
function hasPages(row: InventoryRow): boolean {
  return (row.fileCount ?? 0) > 0;
}

/** An empty site's wait ends at its first pages or when its crawl ends. */
function firstPagesOrSettled(row: InventoryRow): boolean {
  return hasPages(row) || settled(row);
}

const SITE_IDENTITY: ListIdentityType = { kind: 'site', registry: null, package_name: null, version: null, repo_url: null, git_ref: null, commit_sha: null };

/**
 * Site targets: one inventory per `site:host/scope`, filled by crawls on queue `crawl`. Stored
 * pages are listed (and readable) whatever the crawl is doing; pages older than the refresh
 * interval are served while a re-crawl runs in the background. `wait_timeout_ms` waits only
 * for a site with no pages yet, until its first pages are stored or its crawl ends.
 */
export class SiteLister implements Lister<SiteTarget> {
  constructor(
    private readonly deps: ListerDeps,
    private readonly refreshMs: number,
  ) {}

  /** The site's inventory, with its crawl started, retried or refreshed as due; `enqueued` counts crawls this call added. */
  private async inventory(target: SiteTarget): Promise<{ row: InventoryRow; enqueued: number }> {
    // Known sites (nearly every request) are read, not inserted.
    let row = await this.deps.store.byIdentity(target.text);
    if (row === null) {
      const ensured = await this.deps.store.ensure({ kind: 'site', identity: target.text, facts: {} });
      if (ensured.created) {
        await this.deps.enqueue(ensured.row);
        return { row: ensured.row, enqueued: 1 };
      }
      row = ensured.row;
    }
    if (row.state === 'failed') {
      const retried = await retryIfDue(this.deps, row);
      if (retried !== row) return { row: retried, enqueued: 1 };
    }
    if (row.state === 'ready' && row.finishedAt !== null && Date.now() - row.finishedAt.getTime() > this.refreshMs) {
      const refreshed = await this.deps.store.refresh(row.id, this.refreshMs);
      if (refreshed) {
        await this.deps.enqueue(refreshed);
        return { row: refreshed, enqueued: 1 };
      }
      row = (await this.deps.store.get(row.id)) ?? row;
    }
    return { row, enqueued: 0 };
  }

  async resolve(target: SiteTarget, waitMs: number): Promise<ServedView> {
    const found = await this.inventory(target);
    let row = found.row;
    const awaited: { mode: string | null; outcome: WaitOutcome }[] = [];
    if (!firstPagesOrSettled(row) && waitMs > 0) {
      const mode = crawlMode(row);
      const waited = await this.deps.wait(row, waitMs, firstPagesOrSettled);
      row = waited.row;
      awaited.push({ mode, outcome: !waited.completed ? 'timeout' : row.state === 'failed' && !hasPages(row) ? 'discarded' : 'completed' });
    }
    return this.describe(target, row, found.enqueued, awaited);
  }

  /** A cursor's site inventory, as the store has it now (site rows are never cached). */
  view(target: SiteTarget, row: InventoryRow, _pin: string | null): Promise<ServedView> {
    return Promise.resolve(this.describe(target, row, 0, []));
  }

  async readable(target: SiteTarget): Promise<ServedInventory> {
    const { row } = await this.inventory(target);
    const view = this.describe(target, row, 0, []);
    if (view.row === null) {
      throw new DomainError(
        'TARGET_NOT_READY',
        row.state === 'failed'
          ? `${target.text} has no stored pages: ${row.facts.coverageReason ?? 'its crawl failed'}`
          : `${target.text} has no stored pages yet; list it with wait_timeout_ms to wait for its first pages.`,
        { extras: row.state === 'failed' ? {} : { indexing_ref: row.id } },
      );
    }
    return { ...view, row: view.row, served: SITE_IDENTITY };
  }

  private describe(target: SiteTarget, row: InventoryRow, enqueued: number, awaited: Preparation['awaited']): ServedView {
    const available = hasPages(row);
    const working = row.state === 'pending' || row.state === 'preparing';
    const crawlStatus = row.state === 'preparing' ? 'running' : row.state === 'ready' ? 'complete' : row.state === 'failed' ? 'failed' : 'idle';
    let coverage = row.facts.coverage ?? 'none';
    let reason = row.facts.coverageReason ?? null;
    if (!available) {
      coverage = 'none';
      reason = working ? 'No page stored yet: the crawl is queued or running.' : (reason ?? 'No page stored.');
    } else if (working && row.finishedAt === null) {
      // The first pages of the first crawl: not a finished picture.
      coverage = 'partial';
      reason = `${row.fileCount ?? 0} page(s) stored so far; the first crawl is ${row.state === 'preparing' ? 'running' : 'queued'}.`;
    } else if (working) {
      // Pages of the last finished crawl, served while a refresh runs.
      reason = `${reason ?? 'Pages of the last crawl.'} A refresh crawl is ${row.state === 'preparing' ? 'running' : 'queued'}.`;
    }
    return {
      inventoryKind: 'site',
      row: available ? row : null,
      canonicalTarget: available ? target.text : null,
      actionTarget: target.text,
      served: available ? SITE_IDENTITY : null,
      // Every change of the row moves updatedAt; answers that admitted or awaited work are not shared.
      cacheable: enqueued === 0 && awaited.length === 0,
      generation: `${row.updatedAt.getTime()}:${row.fileCount ?? 0}`,
      pin: null,
      stamp: `${row.updatedAt.getTime()}:${row.state}:${row.fileCount ?? 0}`,
      fields: {
        indexed_version: null,
        resolution: null,
        target_resolution: null,
        code_index_state: null,
        indexing_status: null,
        indexing_ref: null,
        available_versions: null,
        indexing_estimate: null,
        inventory_state: available ? 'available' : 'empty',
        crawl_status: crawlStatus,
        coverage_state: coverage,
        coverage_reason: reason,
        preparation: {
          selected: 1,
          enqueued,
          active_jobs: working ? [{ mode: crawlMode(row), state: row.state === 'preparing' ? 'active' : 'waiting' }] : [],
          awaited,
        },
      },
    };
  }
}

/** `initial` for a site's first crawl, `refresh` for later ones. */
function crawlMode(row: InventoryRow): string {
  return row.finishedAt === null ? 'initial' : 'refresh';
}
