import { connectDatabase, type DatabaseHandle } from '../db/client.js';
import type { Logger } from '../logger.js';
import { createOutgoing, type Outgoing } from '../net/dispatchers.js';
import { AdvisoryStore } from './store.js';
import { syncAdvisories, type SyncOutcome } from './sync.js';

/**
 * The maintenance task `advisories` of a worker: its own small Postgres pool (an import holds one
 * session for the writers' lock and writes through another) and the project's outgoing HTTP stack,
 * with ADVISORY_DB_URL's origin trusted as an operator-configured one (as the registries are).
 */
export interface AdvisorySyncTask {
  /** One sync of every configured ecosystem; null when another process holds the writers' lock. */
  run(stop?: AbortSignal): Promise<SyncOutcome[] | null>;
  /**
   * Starts a sync in the background unless this process runs one already: a sync of the whole
   * dump takes minutes, and the maintenance queue (one job at a time per worker) must keep
   * reconciling meanwhile.
   */
  trigger(): void;
  /** Stops a background sync (its ecosystem is marked failed, the loaded set stays) and closes the pool. */
  close(): Promise<void>;
}

export interface AdvisorySyncSettings {
  readonly databaseUrl: string;
  /** ADVISORY_DB_URL. */
  readonly baseUrl: string;
  readonly ecosystems: readonly string[];
  /** REGISTRY_ALLOW_PRIVATE_ADDRESSES: redirects may lead to private addresses too. */
  readonly allowPrivate: boolean;
}

export function advisorySync(settings: AdvisorySyncSettings, logger: Logger): AdvisorySyncTask {
  const { baseUrl } = settings;
  let opened: { database: DatabaseHandle; outgoing: Outgoing } | null = null;
  const open = (): { database: DatabaseHandle; outgoing: Outgoing } =>
    (opened ??= {
      database: connectDatabase(settings.databaseUrl, { max: 3, applicationName: 'pkgscope-advisories', logger }),
      outgoing: createOutgoing({ trusted: [baseUrl], allowPrivate: settings.allowPrivate }),
    });
  const log = logger.child({ task: 'advisories' });
  const stopping = new AbortController();
  let background: Promise<void> | null = null;
  const task: AdvisorySyncTask = {
    trigger() {
      if (background !== null || stopping.signal.aborted) return;
      background = task
        .run(stopping.signal)
        .then(
          () => undefined,
          // Postgres itself failed (the sources could not even be marked): the next run tries again.
          (error: unknown) => log.warn({ error: error instanceof Error ? error.message : String(error) }, 'advisory sync stopped'),
        )
        .finally(() => {
          background = null;
        });
    },
    async run(stop) {
      const { database, outgoing } = open();
      const outcomes = await syncAdvisories({
        store: new AdvisoryStore(database.db),
        baseUrl,
        ecosystems: settings.ecosystems,
        dispatcher: outgoing.following,
        logger: log,
        ...(stop ? { signal: stop } : {}),
      });
      if (outcomes === null) log.debug('another process is syncing advisories; this run is skipped');
      return outcomes;
    },
    async close() {
      stopping.abort();
      await background;
      if (opened === null) return;
      const { database, outgoing } = opened;
      opened = null;
      await Promise.all([database.close(), outgoing.close()]);
    },
  };
  return task;
}
