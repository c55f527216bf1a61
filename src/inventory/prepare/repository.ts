import { isUtf8 } from 'node:buffer';
import type { InventoryFacts } from '../../db/schema/index.js';
import type { Logger } from '../../logger.js';
import { attemptsOver, beginAttempt, EntryCollector, indexTexts, type PreparationOutcome } from './package.js';
import { BlobReader, GitError, listTree, type GitSource } from '../sources/git.js';
import type { InventoryStore } from '../store/store.js';

export interface RepositoryPreparationDeps {
  readonly store: InventoryStore;
  readonly git: GitSource;
  readonly logger: Logger;
  readonly notify: (inventoryId: string) => Promise<void>;
  readonly maxAttempts: number;
  /** Blobs above this size are listed without content (and not even fetched). */
  readonly maxFileBytes: number;
  /** A snapshot whose stored contents exceed this fails its preparation. */
  readonly maxTotalBytes: number;
  readonly timeoutMs: number;
}

class SnapshotTooLarge extends Error {}

const SYMLINK_MODE = '120000';

/**
 * Prepares a repository commit's inventory: the commit is fetched into the bare cache, its tree
 * listed and every blob within the size limit read and classified like a package's files. The
 * whole snapshot is covered. Symlinks are listed with their target as content (never followed);
 * submodules are listed without content; paths that are not UTF-8 cannot be named in JSON and
 * are left out with a note. On success the ref that asked for the commit points at it.
 */
export async function prepareRepositoryInventory(id: string, deps: RepositoryPreparationDeps): Promise<PreparationOutcome> {
  const { store } = deps;
  const attempt = await beginAttempt(id, deps);
  if (attempt === null) return 'done';
  const { claimed, log, started } = attempt;
  const facts: InventoryFacts = { ...claimed.facts };
  const finish = (failure: string): Promise<PreparationOutcome> => attempt.end('failed', failure, facts);
  const url = facts.repoUrl;
  const commit = facts.commit;
  if (!url || !commit) return finish('invalid_inventory');
  try {
    const collector = new EntryCollector(store, 'repository', true);
    await deps.git.withCommit(url, commit, deps.maxFileBytes, async (repo) => {
      const tree = await listTree(repo, commit, deps.timeoutMs);
      const reader = new BlobReader(repo);
      try {
        for (const entry of tree) {
          if (!isUtf8(entry.path)) {
            collector.notes.push(`path ${entry.path.toString('latin1')} is not UTF-8; left out`);
            continue;
          }
          const path = entry.path.toString('utf8');
          if (entry.type === 'commit') {
            await collector.special(path, 'submodule', null);
          } else if (entry.type === 'blob' && entry.mode === SYMLINK_MODE) {
            await collector.special(path, 'symlink', entry.missing === true ? null : await reader.read(entry.sha));
          } else if (entry.type === 'blob') {
            const fits = entry.missing !== true && entry.size !== null && entry.size <= deps.maxFileBytes;
            await collector.add(path, entry.size, fits ? await reader.read(entry.sha) : null);
          }
          if (collector.totalBytes > deps.maxTotalBytes) throw new SnapshotTooLarge();
        }
      } finally {
        reader.close();
      }
    });
    await collector.flush();
    const entries = [...collector.entries.values()];
    const done = await store.complete(id, claimed.attempt, entries, {
      fileCount: entries.length,
      totalBytes: collector.totalBytes,
      preparationMs: Date.now() - started,
      facts: { ...facts, skipped: collector.notes.slice(0, 200) },
    });
    if (done) {
      if (facts.repository && facts.ref && facts.ref !== commit) await store.setRefPointer(facts.repository, facts.ref, id, commit);
      await deps.notify(id);
      log.info({ files: entries.length, bytes: collector.totalBytes, ms: Date.now() - started }, 'repository inventory ready');
      const indexed = await indexTexts(store, collector);
      log.info({ texts: indexed, ms: Date.now() - started }, 'repository texts indexed');
    }
    return 'done';
  } catch (error) {
    if (error instanceof SnapshotTooLarge) return finish('too_large');
    if (error instanceof GitError) {
      // A timeout may pass on another attempt; a refused fetch (commit gone, access lost) will not.
      if (error.exitCode === null && !attemptsOver({ ...claimed, attempt: claimed.attempt + 1 }, deps.maxAttempts)) {
        log.warn({ attempt: claimed.attempt }, 'git fetch timed out; preparation will be retried');
        return 'retry';
      }
      log.warn({ stderr: error.stderr.slice(0, 500) }, 'git fetch failed');
      return finish(error.exitCode === null ? 'fetch_timeout' : 'fetch_failed');
    }
    log.error({ err: error }, 'repository preparation failed');
    return finish('internal_error');
  }
}
