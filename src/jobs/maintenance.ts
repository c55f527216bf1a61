import type { Job, Queue } from 'bullmq';
import type { Logger } from '../logger.js';
import { enqueueInventory, enqueueSbomJob, preparationQueue, type PreparationQueues, type SbomQueue } from './queues.js';
import type { JobStore } from './store.js';

/** Queue states in which a BullMQ job will still be processed. */
const LIVE_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

export interface ReconcileOptions {
  readonly graceMs: number;
  readonly batch: number;
  readonly maxAttempts: number;
}

/**
 * Queue entries BullMQ reported `unknown` (its hash exists, but it is in no list), by id, with
 * when that was first seen. Such an entry may be between two lists, so it is only taken for
 * dead once it stayed unknown for a whole grace period. One per process, kept across rounds.
 */
export type UnknownEntries = Map<string, number>;

interface Candidate {
  readonly id: string;
  readonly queueId: string;
  readonly queue: Queue;
}

/**
 * Which candidates have no live queue entry. Postgres is read again after the queue: a job that
 * finished meanwhile was committed before its queue entry went away, so the second read no
 * longer lists it, and a finished job is never enqueued again.
 */
async function deadEntries(
  candidates: readonly Candidate[],
  reread: () => Promise<readonly { id: string }[]>,
  unknown: UnknownEntries,
  graceMs: number,
): Promise<{ candidate: Candidate; state: string; existing: Job | undefined }[]> {
  const dead = [];
  const now = Date.now();
  for (const candidate of candidates) {
    const existing = (await candidate.queue.getJob(candidate.queueId)) as Job | undefined;
    const state = existing ? await existing.getState() : 'missing';
    if (state !== 'unknown') unknown.delete(candidate.queueId);
    if (LIVE_STATES.has(state)) continue;
    if (state === 'unknown') {
      const since = unknown.get(candidate.queueId);
      if (since === undefined) unknown.set(candidate.queueId, now);
      if (since === undefined || now - since < graceMs) continue;
    }
    dead.push({ candidate, state, existing });
  }
  if (dead.length === 0) return [];
  const still = new Set((await reread()).map((r) => r.id));
  return dead.filter((d) => still.has(d.candidate.id));
}

/** Removes what is left of a dead entry (an unknown or failed hash blocks re-adding its id). */
async function clear(existing: Job | undefined, queueId: string, unknown: UnknownEntries): Promise<void> {
  unknown.delete(queueId);
  if (existing) await existing.remove().catch(() => undefined);
}

/**
 * Postgres is the truth, Redis is delivery: every unfinished job without a live queue entry
 * (Redis lost it, or it failed there) is enqueued again under its own id.
 */
export async function reconcileJobs(
  store: JobStore,
  queue: SbomQueue,
  options: ReconcileOptions,
  logger: Logger,
  unknown: UnknownEntries = new Map(),
): Promise<{ checked: number; requeued: number }> {
  const read = () => store.unfinishedOlderThan(options.graceMs, options.batch);
  const candidates = (await read()).map(({ id }) => ({ id, queueId: id, queue: queue as Queue }));
  let requeued = 0;
  for (const { candidate, state, existing } of await deadEntries(candidates, read, unknown, options.graceMs)) {
    await clear(existing, candidate.queueId, unknown);
    await enqueueSbomJob(queue, candidate.id, options.maxAttempts);
    requeued++;
    logger.warn({ jobId: candidate.id, queueState: state }, 'reconciler re-enqueued a job with no live queue entry');
  }
  return { checked: candidates.length, requeued };
}

/** What the inventory reconciler needs of the inventory store (kept narrow: jobs/ stays below inventory/). */
export interface UnfinishedInventories {
  unfinishedOlderThan(graceMs: number, limit: number): Promise<readonly { id: string; kind: string }[]>;
}

/** The same rule for inventory preparations: unfinished without a live queue entry → enqueue again. */
export async function reconcileInventories(
  store: UnfinishedInventories,
  queues: PreparationQueues,
  graceMs: number,
  logger: Logger,
  unknown: UnknownEntries = new Map(),
): Promise<number> {
  const read = () => store.unfinishedOlderThan(graceMs, 500);
  const rows = await read();
  const kinds = new Map(rows.map((r) => [r.id, r.kind]));
  const candidates = rows.map(({ id, kind }) => ({ id, queueId: `inv-${id}`, queue: preparationQueue(queues, kind) as Queue }));
  let requeued = 0;
  for (const { candidate, state, existing } of await deadEntries(candidates, read, unknown, graceMs)) {
    await clear(existing, candidate.queueId, unknown);
    await enqueueInventory(queues, candidate.id, kinds.get(candidate.id) ?? 'package');
    requeued++;
    logger.warn({ inventoryId: candidate.id, queueState: state }, 'reconciler re-enqueued an inventory preparation');
  }
  return requeued;
}

/** Deletes expired jobs (with their inputs and results) in batches. */
export async function expireJobs(store: JobStore, batch: number, maxBatches: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const deleted = await store.deleteExpired(batch);
    total += deleted;
    if (deleted < batch) break;
  }
  return total;
}

export const MAINTENANCE_TASKS = ['reconcile', 'expire', 'advisories'] as const;
export type MaintenanceTask = (typeof MAINTENANCE_TASKS)[number];

/**
 * (Re)creates the maintenance job schedulers that are missing (Redis lost them: a flush, a
 * restart without persistence); returns which were. Existing ones are left alone, so calling
 * this often never delays their next run. A scheduler with `every` runs at once when created.
 * A task whose interval is null (advisories switched off) has its scheduler removed.
 */
export async function ensureMaintenanceSchedules(
  queue: Queue,
  intervals: Readonly<Record<MaintenanceTask, number | null>>,
): Promise<MaintenanceTask[]> {
  const created: MaintenanceTask[] = [];
  for (const task of MAINTENANCE_TASKS) {
    const every = intervals[task];
    const existing = await queue.getJobScheduler(task);
    if (every === null) {
      if (existing !== undefined) await queue.removeJobScheduler(task);
      continue;
    }
    if (existing !== undefined) continue;
    await queue.upsertJobScheduler(task, { every }, { name: task, opts: { removeOnComplete: true, removeOnFail: 100 } });
    created.push(task);
  }
  return created;
}

/**
 * Asks for one advisory sync now (a process starting up): deduplicated by its job id while one
 * waits, and a sync already running elsewhere makes it a no-op (the writers' lock in Postgres).
 */
export async function requestAdvisorySync(queue: Queue): Promise<void> {
  await queue.add('advisories', {}, { jobId: 'advisories-start-up', removeOnComplete: true, removeOnFail: true });
}
