import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../config.js';
import type { App, RoutePlugin } from '../http/app.js';
import { headerLines } from '../http/headers.js';
import { ProblemError } from '../http/problems.js';
import { SseWriter } from '../http/sse.js';
import { jobChannel, type EventHub } from '../jobs/events.js';
import { JobStatusCache } from '../jobs/status-cache.js';
import { enqueueSbomJob, type SbomQueue } from '../jobs/queues.js';
import { isTerminal, JOB_PHASES, JOB_STATES, jobLocation, JOBS_PATH, type JobSnapshot } from '../jobs/snapshot.js';
import { SnapshotReads } from '../jobs/snapshot-reads.js';
import type { JobStore } from '../jobs/store.js';
import { parseIdempotencyKey, requestHash } from '../jobs/submission.js';
import type { Logger } from '../logger.js';
import { OutageLog } from '../outage-log.js';
import { PARSER_CONTRACT_VERSION } from '../sbom/contract.js';
import { FAILURE_CODES, OUTPUT_FORMATS } from '../sbom/types.js';
import { diagnosticsOf } from './diagnostics.js';
import { AUTHENTICATED_PROBLEMS, json, problemResponses } from '../http/openapi.js';
import { NO_QUERY_PARAMETERS } from '../http/validation.js';
import { DOCUMENT_CONTENT, MULTIPART_OPTIONS, readUpload, UPLOAD_BODY_LIMIT, uploadBodySchema } from './upload.js';

export interface LockfileJobRouteDeps {
  readonly config: Pick<Config, 'jobTtlSeconds' | 'jobMaxAttempts' | 'sseHeartbeatMs' | 'redisPrefix' | 'jobStatusFreshMs'>;
  readonly store: JobStore;
  readonly queue: SbomQueue;
  readonly hub: EventHub;
  readonly logger: Logger;
  /** Counts open event streams (metrics). */
  readonly streams?: { opened(): void; closed(): void };
}

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
const IdParams = Type.Object({ id: Type.String({ description: 'The job id (a UUID).' }) });

/** The job snapshot, as documented (the store's projection is the source of truth). */
export const JobSnapshotSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  kind: Type.Literal('sbom'),
  format: Type.Enum([...OUTPUT_FORMATS]),
  state: Type.Enum([...JOB_STATES]),
  phase: Type.Enum([...JOB_PHASES]),
  attempt: Type.Integer({ minimum: 0 }),
  revision: Type.Integer({ minimum: 0 }),
  counts: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  error: Type.Union([Type.Enum([...FAILURE_CODES]), Type.Null()]),
  expires_at: Type.String({ format: 'date-time' }),
  result_url: Type.String(),
});

const JOB_COST = { weight: 0, class: 'light' } as const;

/** One answer for a missing, expired or someone else's job, so none can be told apart. */
function jobNotFound(): ProblemError {
  return new ProblemError('JOB_NOT_FOUND', 'No lockfile job with this id exists for this account.');
}

function jobId(request: FastifyRequest<{ Params: { id: string } }>): string {
  const { id } = request.params;
  if (!UUID.test(id)) throw jobNotFound();
  return id.toLowerCase();
}

function accountOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal === null) throw new Error('authenticated route reached without a principal');
  return principal.accountId;
}

/** The revision a reconnecting client last received (`Last-Event-ID`); -1 when absent or not a revision. */
function resumedAt(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : -1;
}

const IDEMPOTENCY_HEADER = new Set(['idempotency-key']);

/** Submit, status, result and events of lockfile analysis jobs. */
export function lockfileJobRoutes(deps: LockfileJobRouteDeps): RoutePlugin {
  const { store, queue, hub, config, logger } = deps;
  const rereads = new SnapshotReads((ids) => store.findMany(ids));
  const redisPrefix = config.redisPrefix;
  const outages = new OutageLog(logger);
  return async (app: App) => {
    await app.register(multipart, MULTIPART_OPTIONS);
    const statuses = new JobStatusCache({ hub, prefix: redisPrefix, logger, freshMs: config.jobStatusFreshMs });
    app.addHook('onClose', async () => {
      statuses.close();
    });
    const path = JOBS_PATH.replace(/^\/v1/, '');

    app.post(
      path,
      {
        bodyLimit: UPLOAD_BODY_LIMIT,
        config: { capability: 'sbom' },
        schema: {
          summary: 'Submit manifests and lockfiles for an asynchronous inventory',
          operationId: 'submitLockfileJob',
          tags: ['lockfile jobs'],
          body: uploadBodySchema,
          querystring: NO_QUERY_PARAMETERS,
          response: {
            202: json('The job was accepted (or an Idempotency-Key replayed it); Location names it.', JobSnapshotSchema),
            // 503: too many large uploads at once (Retry-After says when to try again).
            ...problemResponses(...AUTHENTICATED_PROBLEMS, 409, 503),
          },
          'x-service-cost': { weight: 5, class: 'standard' },
        },
      },
      async (request, reply) => {
        const idempotency = parseIdempotencyKey(headerLines(request.raw, IDEMPOTENCY_HEADER)['idempotency-key']);
        if (!idempotency.ok) {
          throw new ProblemError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 printable ASCII characters, sent once.');
        }
        const upload = await readUpload(request);
        const outcome = await store.create({
          accountId: accountOf(request),
          format: upload.format,
          files: upload.files,
          environment: upload.environment,
          totalBytes: upload.totalBytes,
          idempotencyKey: idempotency.key,
          requestHash: requestHash(upload.format, upload.files, upload.environment),
          parserContract: PARSER_CONTRACT_VERSION,
          ttlSeconds: config.jobTtlSeconds,
        });
        if (outcome.kind === 'conflict') {
          throw new ProblemError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different request.');
        }
        const snapshot = outcome.snapshot;
        if (outcome.kind === 'created') {
          // Before the job is queued, so that nothing can be published for it unheard.
          await statuses.track(snapshot, accountOf(request));
          try {
            await enqueueSbomJob(queue, snapshot.id, config.jobMaxAttempts);
          } catch (error) {
            // The job is committed; the reconciler enqueues it once Redis answers again.
            request.log.warn({ err: error, jobId: snapshot.id }, 'enqueue failed; left to the reconciler');
          }
        }
        return reply.code(202).header('location', jobLocation(snapshot.id)).send(snapshot);
      },
    );

    const jobSchema = (summary: string, operationId: string, response: Record<number, unknown>) =>
      ({ summary, operationId, tags: ['lockfile jobs'], params: IdParams, querystring: NO_QUERY_PARAMETERS, response: { ...response, ...problemResponses(...AUTHENTICATED_PROBLEMS, 404) }, 'x-service-cost': JOB_COST }) as const;

    app.get(`${path}/:id`, { config: { capability: 'sbom' }, schema: jobSchema('The current snapshot of a job', 'getLockfileJob', { 200: json('The snapshot.', JobSnapshotSchema) }) }, async (request) => {
      const id = jobId(request);
      const accountId = accountOf(request);
      const snapshot = await statuses.get(id, accountId, () => store.findForOwner(id, accountId));
      if (snapshot === null) throw jobNotFound();
      return snapshot;
    });

    app.get(
      `${path}/:id/result`,
      {
        config: { capability: 'sbom' },
        schema: jobSchema('The result document of a succeeded job', 'getLockfileJobResult', {
          200: { description: 'The document, in the media type of the job\'s format.', content: DOCUMENT_CONTENT },
          ...problemResponses(409),
        }),
      },
      async (request, reply) => {
      const lookup = await store.result(jobId(request), accountOf(request));
      switch (lookup.kind) {
        case 'missing':
          throw jobNotFound();
        case 'pending':
          throw new ProblemError('ANALYSIS_PENDING', 'The job has not finished; follow its status or events.');
        case 'failed':
          throw new ProblemError('ANALYSIS_FAILED', 'The analysis failed; failure_code tells why.', {
            extras: { failure_code: lookup.code, diagnostics: diagnosticsOf(lookup.problems) },
          });
        case 'ready':
          // The media type comes from the allow-list fixed at submission; Accept does not choose it.
          // A Buffer keeps Fastify from appending a charset to the exact allow-listed type.
          return reply.header('content-type', lookup.result.mediaType).send(Buffer.from(lookup.result.document, 'utf8'));
      }
    });

    app.get(
      `${path}/:id/events`,
      {
        config: { capability: 'sbom' },
        schema: jobSchema('The job\'s snapshots as Server-Sent Events, until a terminal one', 'streamLockfileJobEvents', {
          200: {
            description: 'event: snapshot, id: the revision, data: the snapshot JSON; heartbeat comments; resumable with Last-Event-ID.',
            content: { 'text/event-stream': { schema: Type.String() } },
          },
          204: { description: 'The job has finished and Last-Event-ID is at or past its terminal revision: nothing more will come.' },
        }),
      },
      async (request, reply) => {
      const id = jobId(request);
      const accountId = accountOf(request);
      let writer: SseWriter | null = null;
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
        writer?.end();
      };
      const deliver = (snapshot: JobSnapshot): void => {
        if (closed) return;
        if (writer === null) {
          early.push(snapshot);
          return;
        }
        heard = true;
        // Revisions never go backwards for a client; equal ones (duplicates) are allowed.
        if (snapshot.revision < lastRevision) return;
        lastRevision = snapshot.revision;
        const final = isTerminal(snapshot.state);
        writer.send(SseWriter.frame('snapshot', String(snapshot.revision), JSON.stringify(snapshot)), final);
        if (final) close();
      };
      let rereading = false;
      const reread = async (): Promise<void> => {
        if (rereading || closed) return;
        rereading = true;
        try {
          // The owner was checked when the stream opened; the job's owner never changes.
          const current = await rereads.read(id);
          if (current === null) close();
          else if (current.revision > lastRevision || isTerminal(current.state)) deliver(current);
          outages.recovered('event-streams');
        } catch (error) {
          // Postgres is down: the stream stays open and tries again at the next heartbeat.
          outages.warn('event-streams', error, 'event stream could not re-read its snapshot');
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
      // Subscribe first, then read: a snapshot published in between is not lost.
      unsubscribe = await hub.subscribe(jobChannel(redisPrefix, id), { onMessage, onResync: () => void reread(), onClose: close });
      let snapshot: JobSnapshot | null;
      try {
        snapshot = await store.findForOwner(id, accountId);
      } catch (error) {
        unsubscribe();
        throw error;
      }
      if (snapshot === null) {
        unsubscribe();
        throw jobNotFound();
      }
      if (isTerminal(snapshot.state) && resumedAt(request.headers['last-event-id']) >= snapshot.revision) {
        // The client already holds the terminal snapshot: 204 tells a standard EventSource to stop
        // reconnecting (an ended stream alone makes it reconnect every few seconds, forever).
        unsubscribe();
        return reply.code(204).header('cache-control', 'no-store').send();
      }
      reply.hijack();
      writer = new SseWriter(reply.raw, { 'x-request-id': request.id }, config.sseHeartbeatMs);
      deps.streams?.opened();
      writer.onClose(() => deps.streams?.closed());
      writer.onClose(close);
      writer.onHeartbeat(() => {
        if (!heard) void reread();
        heard = false;
      });
      deliver(snapshot);
      const pending = early;
      early = [];
      for (const s of pending) deliver(s);
      return reply;
    });
  };
}
