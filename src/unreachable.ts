import { redactUrl } from './config-env.js';

/**
 * A backing service that does not answer at start-up. The CLI prints `message` as one line
 * (the URL tried and how to start the service) instead of a stack trace.
 */
export class UnreachableServiceError extends Error {
  constructor(service: 'Postgres' | 'Redis', url: string, cause: unknown, howToStart: string) {
    super(`cannot reach ${service} at ${redactUrl(url)} (${errorCode(cause)}); ${howToStart}`, { cause });
    this.name = 'UnreachableServiceError';
  }
}

/** The most specific code of a connection error (Node wraps dual-stack failures in AggregateError). */
export function errorCode(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return errorCode(error.errors[0]);
  if (error instanceof Error) {
    const code = (error as Error & { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    return error.message.split('\n')[0] ?? error.name;
  }
  return String(error);
}
