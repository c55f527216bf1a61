import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors.js';
import { ProblemError, sendProblem } from './problems.js';
import { describeValidationError } from './validation.js';
import { OutageLog } from '../outage-log.js';
import { isStoreUnavailable } from '../store-errors.js';

/** Fixed detail of every unexpected failure: internals stay in the log under the request id. */
export const INTERNAL_DETAIL = 'The request could not be completed because of an internal error.';

function bodyLimitDetail(request: FastifyRequest): string {
  const limit = request.routeOptions.bodyLimit;
  return `The request body exceeds this operation's limit of ${limit} bytes.`;
}

/** What the framework reports about a request it could not read, as a client-safe 400. */
function frameworkDetail(error: FastifyError, request: FastifyRequest): string | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return bodyLimitDetail(request);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return `Content-Type ${JSON.stringify(request.headers['content-type'] ?? '')} is not accepted by this operation.`;
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is empty; a JSON object is required.';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'The request body is not valid JSON.';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Content-Length does not match the size of the request body.';
    case 'FST_ERR_BAD_URL':
      return 'The request URL is malformed.';
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return 'The multipart body has too many parts.';
    default:
      return null;
  }
}

/** Seconds a client should wait before retrying while Postgres or Redis is down. */
const STORE_RETRY_AFTER_SECONDS = '5';

/** A domain failure as the problem of its code: the catalogue's status, its detail and extra members. */
function domainProblem(error: DomainError): ProblemError {
  return new ProblemError(error.code, error.detail, {
    extras: error.extras,
    ...(error.retryAfterSeconds === null ? {} : { headers: { 'Retry-After': String(error.retryAfterSeconds) } }),
  });
}

/** Maps anything thrown during a request to a problem; unexpected errors become a bare 500. */
export function toProblem(error: unknown, request: FastifyRequest): ProblemError | null {
  if (error instanceof ProblemError) return error;
  if (error instanceof DomainError) return domainProblem(error);
  if (isStoreUnavailable(error)) {
    return new ProblemError('SERVICE_UNAVAILABLE', 'A data store of the service is unavailable; retry after the time given.', {
      headers: { 'retry-after': STORE_RETRY_AFTER_SECONDS },
    });
  }
  const fastifyError = error as Partial<FastifyError>;
  const first = fastifyError.validation?.[0];
  if (first !== undefined) {
    const part = fastifyError.validationContext ?? 'body';
    return new ProblemError('VALIDATION_ERROR', `${describeValidationError(first, part)}.`);
  }
  const status = fastifyError.statusCode;
  if (typeof fastifyError.code === 'string') {
    const detail = frameworkDetail(fastifyError as FastifyError, request);
    if (detail !== null) return new ProblemError('VALIDATION_ERROR', detail);
  }
  // JSON.parse failures of a body (e.g. prototype-poisoning guards) arrive as 400 SyntaxErrors.
  if (status === 400 && error instanceof SyntaxError) {
    return new ProblemError('VALIDATION_ERROR', 'The request body is not valid JSON.');
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ProblemError('VALIDATION_ERROR', 'The request could not be read.');
  }
  return null;
}

/** One warning per interval per server while a store is down (each 503 is in the request log). */
const storeOutages = new WeakMap<object, OutageLog>();

function noteStoreOutage(request: FastifyRequest, error: unknown): void {
  const server = request.server;
  let outages = storeOutages.get(server);
  if (outages === undefined) storeOutages.set(server, (outages = new OutageLog(server.log)));
  outages.warn('http', error, 'requests answered 503: a store is unavailable');
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const problem = toProblem(error, request);
  if (problem) {
    // A route's or service's own 503 (a registry in trouble, a full pool) is no store outage; its thrower logged the cause.
    if (problem.code === 'SERVICE_UNAVAILABLE' && !(error instanceof ProblemError || error instanceof DomainError)) noteStoreOutage(request, error);
    else if (problem.code === 'SERVICE_UNAVAILABLE') request.log.warn({ detail: problem.detail }, 'request answered 503');
    else if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(request, reply, problem);
  }
  request.log.error({ err: error }, 'unexpected error');
  return sendProblem(request, reply, new ProblemError('INTERNAL_ERROR', INTERNAL_DETAIL));
}
