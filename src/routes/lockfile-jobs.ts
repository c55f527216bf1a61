import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App, RoutePlugin } from '../http/app.js';
import { headerLines } from '../http/headers.js';
import { ProblemError } from '../http/problems.js';
import { SseWriter } from '../http/sse.js';
import type { EventHub } from '../jobs/events.js';
import { JobStreams } from '../jobs/event-stream.js';
import { JobStatusCache } from '../jobs/status-cache.js';
import { enqueueSbomJob, type SbomQueue } from '../jobs/queues.js';
import { JOB_PHASES, JOB_STATES, jobLocation, JOBS_PATH } from '../jobs/snapshot.js';
import type { JobStore } from '../jobs/store.js';
import { parseIdempotencyKey, requestHash } from '../jobs/submission.js';
import type { Logger } from '../logger.js';
import { PARSER_CONTRACT_VERSION } from '../sbom/contract.js';
import { FAILURE_CODES, OUTPUT_FORMATS } from '../model/types.js';
import { diagnosticsOf } from './diagnostics.js';
import { AUTHENTICATED_PROBLEMS, json, problemResponses } from '../http/openapi.js';
import { NO_QUERY_PARAMETERS } from '../http/validation.js';
import { DOCUMENT_CONTENT, MULTIPART_OPTIONS, readUpload, UPLOAD_BODY_LIMIT, uploadBodySchema } from './upload.js';

export interface LockfileJobRouteDeps {
  readonly config: {
    readonly jobTtlSeconds: number;
    readonly jobMaxAttempts: number;
    readonly sseHeartbeatMs: number;
    readonly redisPrefix: string;
    readonly jobStatusFreshMs: number;
  };
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
  const redisPrefix = config.redisPrefix;
  const jobStreams = new JobStreams({ store, hub, redisPrefix, logger });
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
          vulnerabilities: upload.vulnerabilities,
          totalBytes: upload.totalBytes,
          idempotencyKey: idempotency.key,
          requestHash: requestHash(upload.format, upload.files, upload.environment, upload.vulnerabilities),
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
      const opening = await jobStreams.open(jobId(request), accountOf(request), resumedAt(request.headers['last-event-id']));
      if (opening.kind === 'not_found') throw jobNotFound();
      if (opening.kind === 'finished') {
        // The client already holds the terminal snapshot: 204 tells a standard EventSource to stop
        // reconnecting (an ended stream alone makes it reconnect every few seconds, forever).
        return reply.code(204).header('cache-control', 'no-store').send();
      }
      const { stream } = opening;
      reply.hijack();
      const writer = new SseWriter(reply.raw, { 'x-request-id': request.id }, config.sseHeartbeatMs);
      deps.streams?.opened();
      writer.onClose(() => deps.streams?.closed());
      writer.onClose(() => stream.close());
      writer.onHeartbeat(() => stream.heartbeat());
      stream.attach({
        send: (snapshot, final) => writer.send(SseWriter.frame('snapshot', String(snapshot.revision), JSON.stringify(snapshot)), final),
        end: () => writer.end(),
      });
      return reply;
    });
  };
}
