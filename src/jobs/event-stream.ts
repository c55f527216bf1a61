import type { Logger } from '../logger.js';
import { OutageLog } from '../outage-log.js';
import { jobChannel, type EventHub } from './events.js';
import { isTerminal, type JobSnapshot } from './snapshot.js';
import { SnapshotReads } from './snapshot-reads.js';
import type { JobStore } from './store.js';

/** Where a job's snapshots go (in the API: a Server-Sent Events response). */
export interface SnapshotSink {
  /** Sends a snapshot; `final` ends the sink after it. */
  send(snapshot: JobSnapshot, final: boolean): void;
  end(): void;
}

/** A job's snapshot stream, subscribed and read, waiting for its sink. */
export interface JobStream {
  /** Delivers the snapshot read at opening and what arrived since, then each new one. */
  attach(sink: SnapshotSink): void;
  /** Call at each heartbeat of the sink: a stream that heard nothing since re-reads Postgres. */
  heartbeat(): void;
  /** Ends the stream (its sink closed, the hub closed, or a terminal snapshot went out). */
  close(): void;
}

export type StreamOpening =
  | { readonly kind: 'not_found' }
  /** The client already holds the terminal snapshot (its Last-Event-ID is at or past it). */
  | { readonly kind: 'finished' }
  | { readonly kind: 'open'; readonly stream: JobStream };

export interface JobStreamDeps {
  readonly store: JobStore;
  readonly hub: EventHub;
  readonly redisPrefix: string;
  readonly logger: Logger;
}

/**
 * The state machine of job event streams: snapshots from the hub in revision order (never
 * backwards), ended by a terminal one, and a re-read of Postgres when a stream goes quiet, so a
 * snapshot whose publish was lost (its worker died right after the commit) still arrives.
 */
export class JobStreams {
  private readonly rereads: SnapshotReads;
  private readonly outages: OutageLog;

  constructor(private readonly deps: JobStreamDeps) {
    this.rereads = new SnapshotReads((ids) => deps.store.findMany(ids));
    this.outages = new OutageLog(deps.logger);
  }

  /** Subscribes to job `id`, then reads it for `accountId`: a snapshot published in between is not lost. */
  async open(id: string, accountId: string, resumedAt: number): Promise<StreamOpening> {
    const { store, hub, logger } = this.deps;
    let sink: SnapshotSink | null = null;
    let lastRevision = -1;
    let early: JobSnapshot[] = [];
    let closed = false;
    // Whether a snapshot arrived since the last heartbeat: a stream that went quiet re-reads
    // Postgres, so a snapshot whose publish was lost (its worker died right after the commit)
    // reaches the client within two heartbeat intervals of the commit.
    let heard = false;
    let unsubscribe = (): void => undefined;
    const close = (): void => {
      if (closed) return;
      closed = true;
      unsubscribe();
      sink?.end();
    };
    const deliver = (snapshot: JobSnapshot): void => {
      if (closed) return;
      if (sink === null) {
        early.push(snapshot);
        return;
      }
      heard = true;
      // Revisions never go backwards for a client; equal ones (duplicates) are allowed.
      if (snapshot.revision < lastRevision) return;
      lastRevision = snapshot.revision;
      const final = isTerminal(snapshot.state);
      sink.send(snapshot, final);
      if (final) close();
    };
    let rereading = false;
    const reread = async (): Promise<void> => {
      if (rereading || closed) return;
      rereading = true;
      try {
        // The owner was checked when the stream opened; the job's owner never changes.
        const current = await this.rereads.read(id);
        if (current === null) close();
        else if (current.revision > lastRevision || isTerminal(current.state)) deliver(current);
        this.outages.recovered('event-streams');
      } catch (error) {
        // Postgres is down: the stream stays open and tries again at the next heartbeat.
        this.outages.warn('event-streams', error, 'event stream could not re-read its snapshot');
      } finally {
        rereading = false;
      }
    };
    const onMessage = (message: string): void => {
      try {
        deliver(JSON.parse(message) as JobSnapshot);
      } catch {
        logger.warn({ jobId: id }, 'malformed snapshot message ignored');
      }
    };
    unsubscribe = await hub.subscribe(jobChannel(this.deps.redisPrefix, id), { onMessage, onResync: () => void reread(), onClose: close });
    let snapshot: JobSnapshot | null;
    try {
      snapshot = await store.findForOwner(id, accountId);
    } catch (error) {
      unsubscribe();
      throw error;
    }
    if (snapshot === null) {
      unsubscribe();
      return { kind: 'not_found' };
    }
    if (isTerminal(snapshot.state) && resumedAt >= snapshot.revision) {
      unsubscribe();
      return { kind: 'finished' };
    }
    const first = snapshot;
    return {
      kind: 'open',
      stream: {
        attach: (target) => {
          sink = target;
          deliver(first);
          const pending = early;
          early = [];
          for (const s of pending) deliver(s);
        },
        heartbeat: () => {
          if (!heard) void reread();
          heard = false;
        },
        close,
      },
    };
  }
}
