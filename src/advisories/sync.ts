import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request, type Dispatcher } from 'undici';
import { blockedIn } from '../net/address-policy.js';
import type { Logger } from '../logger.js';
import { OSV_ECOSYSTEMS } from './ecosystems.js';
import { AdvisoryError } from './errors.js';
import { AdvisoryImport } from './import.js';
import type { AdvisorySourceStatus, AdvisoryStore } from './store.js';
import { ADVISORY_ARCHIVE_LIMITS, readAdvisoryZip, type AdvisoryArchiveLimits } from './zip.js';

/**
 * The maintenance sync: for each configured ecosystem, a conditional GET of
 * `<ADVISORY_DB_URL>/<Ecosystem>/all.zip` (If-None-Match / If-Modified-Since with the validators
 * of the loaded set), the archive streamed to a temporary file within its bounds, read entry by
 * entry into a staged generation, and swapped in. Any failure leaves the loaded set in place,
 * marks the ecosystem `failed` with its reason and is logged once.
 */

export interface SyncDeps {
  readonly store: AdvisoryStore;
  /** The base URL of an OSV bulk layout (no trailing slash needed). */
  readonly baseUrl: string;
  readonly ecosystems: readonly string[];
  /** The project's outgoing HTTP (src/net), following redirects under the address policy. */
  readonly dispatcher: Dispatcher;
  readonly logger: Logger;
  readonly limits?: AdvisoryArchiveLimits;
  /** Deadline of one archive's download. */
  readonly downloadTimeoutMs?: number;
  /** Where archives are downloaded to (default: the system's temporary folder). */
  readonly tmpDir?: string;
  readonly signal?: AbortSignal;
}

export type SyncOutcome =
  | { readonly ecosystem: string; readonly outcome: 'imported'; readonly source: AdvisorySourceStatus; readonly skipped: number }
  | { readonly ecosystem: string; readonly outcome: 'not_modified' }
  | { readonly ecosystem: string; readonly outcome: 'failed'; readonly error: AdvisoryError };

const DOWNLOAD_TIMEOUT_MS = 15 * 60_000;

/** The archive URL of an ecosystem (its name is a path segment, percent-encoded: `crates.io`, `Packagist`, `Red Hat`). */
export function archiveUrl(baseUrl: string, ecosystem: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(ecosystem)}/all.zip`;
}

function failure(url: string, error: unknown): AdvisoryError {
  if (error instanceof AdvisoryError) return error;
  const blocked = blockedIn(error);
  if (blocked !== null) return new AdvisoryError('unreachable', `GET ${url}: ${blocked.message}`, { cause: error });
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const code = (error as { code?: unknown } | null)?.code ?? cause?.code;
  const text = error instanceof Error ? error.message : String(error);
  return new AdvisoryError('unreachable', `GET ${url}: ${typeof code === 'string' ? `${code} ` : ''}${text}`.trim(), { cause: error });
}

type Download =
  | { readonly kind: 'not_modified' }
  | { readonly kind: 'archive'; readonly path: string; readonly etag: string | null; readonly lastModified: string | null };

function header(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' ? value : (value?.[0] ?? null);
}

async function download(deps: SyncDeps, url: string, into: string, validators: { etag: string | null; lastModified: string | null } | null): Promise<Download> {
  const limits = deps.limits ?? ADVISORY_ARCHIVE_LIMITS;
  const signal = AbortSignal.any([AbortSignal.timeout(deps.downloadTimeoutMs ?? DOWNLOAD_TIMEOUT_MS), ...(deps.signal ? [deps.signal] : [])]);
  const headers: Record<string, string> = { 'user-agent': 'pkgscope (advisory sync)' };
  if (validators?.etag) headers['if-none-match'] = validators.etag;
  if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, { method: 'GET', headers, signal, dispatcher: deps.dispatcher });
  } catch (error) {
    throw failure(url, error);
  }
  const { statusCode, body } = response;
  if (statusCode === 304) {
    await body.dump();
    return { kind: 'not_modified' };
  }
  if (statusCode === 404 || statusCode === 410) {
    await body.dump();
    throw new AdvisoryError('unknown_ecosystem', `GET ${url} answered ${statusCode}: the advisory database has no such ecosystem`);
  }
  if (statusCode !== 200) {
    await body.dump();
    throw new AdvisoryError('http_status', `GET ${url} answered ${statusCode}`);
  }
  let size = 0;
  const bound = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > limits.maxArchiveBytes) done(new AdvisoryError('archive_limit', `${url} is larger than ${limits.maxArchiveBytes} bytes`));
      else done(null, chunk);
    },
  });
  const path = join(into, 'all.zip');
  try {
    await pipeline(body, bound, createWriteStream(path));
  } catch (error) {
    throw failure(url, error);
  }
  return { kind: 'archive', path, etag: header(response.headers, 'etag'), lastModified: header(response.headers, 'last-modified') };
}

async function syncOne(deps: SyncDeps, ecosystem: string): Promise<SyncOutcome> {
  const { store } = deps;
  const url = archiveUrl(deps.baseUrl, ecosystem);
  if (!OSV_ECOSYSTEMS.includes(ecosystem)) {
    return { ecosystem, outcome: 'failed', error: new AdvisoryError('unknown_ecosystem', `pkgscope matches no OSV ecosystem named "${ecosystem}" (known: ${OSV_ECOSYSTEMS.join(', ')})`) };
  }
  await store.markSyncing(ecosystem);
  const folder = await mkdtemp(join(deps.tmpDir ?? tmpdir(), 'pkgscope-advisories-'));
  try {
    const fetched = await download(deps, url, folder, await store.validators(ecosystem));
    if (fetched.kind === 'not_modified') {
      await store.markCurrent(ecosystem);
      return { ecosystem, outcome: 'not_modified' };
    }
    const job = new AdvisoryImport(store, { ecosystems: [ecosystem], stageAll: true });
    try {
      await job.begin();
      await readAdvisoryZip(fetched.path, deps.limits ?? ADVISORY_ARCHIVE_LIMITS, (entry) => {
        if (deps.signal?.aborted === true) throw new AdvisoryError('interrupted', 'the sync was stopped (the process is shutting down)');
        return job.entry(entry);
      });
      const [source] = await job.commit(() => ({ etag: fetched.etag, lastModified: fetched.lastModified, origin: url }));
      if (source === undefined) throw new Error(`the ${ecosystem} generation was not committed`);
      if (job.skipped.total > 0) {
        deps.logger.warn({ ecosystem, skipped: job.skipped.total, reasons: job.skipped.byReason, examples: job.skipped.examples }, 'advisory entries skipped');
      }
      return { ecosystem, outcome: 'imported', source, skipped: job.skipped.total };
    } catch (error) {
      await job.discard();
      throw error;
    }
  } catch (error) {
    if (!(error instanceof AdvisoryError)) throw error;
    return { ecosystem, outcome: 'failed', error };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * Syncs every configured ecosystem in turn; null when another process is syncing (or importing)
 * right now: one writer at a time across the deployment. A failure of Postgres itself (not of
 * the source) is thrown, after the ecosystem being synced is marked failed if Postgres still answers.
 */
export async function syncAdvisories(deps: SyncDeps): Promise<SyncOutcome[] | null> {
  const held = await deps.store.exclusively(false, async () => {
    const outcomes: SyncOutcome[] = [];
    for (const ecosystem of deps.ecosystems) {
      if (deps.signal?.aborted === true) break;
      let outcome: SyncOutcome;
      try {
        outcome = await syncOne(deps, ecosystem);
      } catch (error) {
        await deps.store.markFailed(ecosystem, new AdvisoryError('interrupted', `the sync stopped: ${error instanceof Error ? error.message : String(error)}`)).catch(() => undefined);
        throw error;
      }
      if (outcome.outcome === 'failed') {
        await deps.store.markFailed(ecosystem, outcome.error);
        deps.logger.warn({ ecosystem, code: outcome.error.code, reason: outcome.error.message }, 'advisory sync failed; the loaded advisories stay in place');
      } else if (outcome.outcome === 'imported') {
        deps.logger.info({ ecosystem, advisories: outcome.source.advisories, skipped: outcome.skipped }, 'advisories synced');
      }
      outcomes.push(outcome);
    }
    return outcomes;
  });
  return held === null ? null : held.value;
}
