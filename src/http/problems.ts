import { STATUS_CODES } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DomainErrorCode, JsonValue } from '../errors.js';

/**
 * The one catalogue of error codes the API answers with. Clients branch on `code`;
 * `title` is the generic phrase of the status (RFC 9457 with `type: about:blank`).
 */
export const PROBLEM_CODES = {
  VALIDATION_ERROR: 400,
  INVALID_SESSION_ID: 400,
  AUTHENTICATION_REQUIRED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  LIST_TARGET_NOT_FOUND: 404,
  PACKAGE_NOT_FOUND: 404,
  READ_PATH_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  SOURCE_INVENTORY_SCOPE_UNAVAILABLE: 409,
  /** The target is still being prepared (reads); list answers a pending page instead. */
  TARGET_NOT_READY: 409,
  READ_CONTENT_UNAVAILABLE: 409,
  ANALYSIS_PENDING: 409,
  ANALYSIS_FAILED: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  AMBIGUOUS_REF: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  LIST_UNSUPPORTED_API: 502,
  /** A package registry failed (5xx) or could not be reached; the detail names the registry. */
  REGISTRY_UNAVAILABLE: 502,
  SERVICE_UNAVAILABLE: 503,
  TIMEOUT: 504,
} as const satisfies Record<string, number> & Record<DomainErrorCode, number>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

export type { JsonValue };

/** Optional members a problem may carry besides the required six. */
export type ProblemExtras = Readonly<Record<string, JsonValue>>;

export interface ProblemOptions {
  /** Overrides the catalogue status where one code serves two operations (e.g. ANALYSIS_FAILED is 422 on the synchronous endpoint). */
  readonly status?: number;
  readonly extras?: ProblemExtras;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Thrown by routes and http/ in request handling; rendered by the error handler as problem+json. */
export class ProblemError extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly detail: string;
  readonly extras: ProblemExtras;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ProblemCode, detail: string, options: ProblemOptions = {}) {
    super(detail);
    this.name = 'ProblemError';
    this.code = code;
    this.status = options.status ?? PROBLEM_CODES[code];
    this.detail = detail;
    this.extras = options.extras ?? {};
    this.headers = options.headers ?? {};
  }
}

export interface ProblemDocument {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance: string;
  readonly code: ProblemCode;
  readonly [extra: string]: JsonValue;
}

export function problemDocument(problem: ProblemError, requestId: string): ProblemDocument {
  return {
    ...problem.extras,
    type: 'about:blank',
    title: STATUS_CODES[problem.status] ?? 'Error',
    status: problem.status,
    detail: problem.detail,
    instance: requestId,
    code: problem.code,
  };
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: ProblemError): FastifyReply {
  for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
  return reply
    .code(problem.status)
    .type(PROBLEM_MEDIA_TYPE)
    .send(JSON.stringify(problemDocument(problem, request.id)));
}
