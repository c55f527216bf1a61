/**
 * Typed errors of the domain. Services and the code under them throw a DomainError with a code
 * from this union; http/error-handler.ts alone maps it to problem+json (status, title, headers).
 */

export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** What a domain failure is, in the words clients branch on (each is a code of the API's catalogue). */
export const DOMAIN_ERROR_CODES = [
  /** The request names something invalid (a cursor, a pattern, a page too large). */
  'VALIDATION_ERROR',
  'LIST_TARGET_NOT_FOUND',
  /** The registry has no such package, or no version matching the one asked for. */
  'PACKAGE_NOT_FOUND',
  'READ_PATH_NOT_FOUND',
  /** A package's own archive is unavailable; a repository target may cover it. */
  'SOURCE_INVENTORY_SCOPE_UNAVAILABLE',
  /** The target is still being prepared, or its preparation failed. */
  'TARGET_NOT_READY',
  'READ_CONTENT_UNAVAILABLE',
  /** A ref names more than one commit. */
  'AMBIGUOUS_REF',
  /** The registry or host is not supported, not configured, or answered what cannot be read. */
  'LIST_UNSUPPORTED_API',
  'REGISTRY_UNAVAILABLE',
  /** The service is out of capacity for now (retry after `retryAfterSeconds`). */
  'SERVICE_UNAVAILABLE',
  /** An upstream did not answer in time. */
  'TIMEOUT',
] as const;

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export interface DomainErrorOptions {
  /** Members a client reads besides the detail (e.g. `indexing_ref`). */
  readonly extras?: Readonly<Record<string, JsonValue>>;
  /** When the caller may try again; only with SERVICE_UNAVAILABLE. */
  readonly retryAfterSeconds?: number;
}

export class DomainError extends Error {
  readonly code: DomainErrorCode;
  /** Client-safe text: it is sent as the problem's detail. */
  readonly detail: string;
  readonly extras: Readonly<Record<string, JsonValue>>;
  readonly retryAfterSeconds: number | null;

  constructor(code: DomainErrorCode, detail: string, options: DomainErrorOptions = {}) {
    super(detail);
    this.name = 'DomainError';
    this.code = code;
    this.detail = detail;
    this.extras = options.extras ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
  }
}
