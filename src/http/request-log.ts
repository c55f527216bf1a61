import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from '../logger.js';

/**
 * One log line per request, written when it completes, carrying the request id, the account,
 * the session and the client attribution. Incoming-request lines are not written.
 */
export class RequestLogController extends LogController {
  /**
   * The completed line's fields are those below and no others, none of them a credential or a
   * file's content: it skips the redaction every other line goes through, whose wildcard paths
   * cost about a tenth of a status poll's CPU. Made once: a child logger with its own redaction
   * compiles it when made.
   */
  private readonly completed: Logger;

  constructor(logger: Logger) {
    super();
    this.completed = logger.child({}, { redact: [] });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const { attribution, principal } = request;
    const line = {
      // The path only: a query string carries what callers sent (paths, patterns), which can be
      // megabytes long and is theirs to keep out of our logs.
      req: { method: request.method, url: clip(pathOf(request.url)) },
      // Beside req: Fastify's req serializer keeps only method and url.
      route: request.routeOptions.url ?? null,
      res: { statusCode: reply.statusCode },
      responseTime: Math.round(reply.elapsedTime * 100) / 100,
      account: clipOrNull(principal?.accountName),
      session: clipOrNull(attribution?.sessionId),
      client: {
        name: clipOrNull(attribution?.clientName),
        version: clipOrNull(attribution?.clientVersion),
        agent: clipOrNull(attribution?.agent),
      },
    };
    if (error) reply.log.error({ ...line, err: clippedError(error) }, 'request errored');
    else this.completed.info({ reqId: request.id, ...line }, 'request completed');
  }
}

/** Longest value a request line carries; longer ones are cut and their length noted. */
export const MAX_LOGGED_CHARS = 512;

function clip(value: string): string {
  return value.length <= MAX_LOGGED_CHARS ? value : `${value.slice(0, MAX_LOGGED_CHARS)}… (${value.length} characters)`;
}

function clipOrNull(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : clip(value);
}

/** The URL's path, without its query string. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** An error as pino writes one (type, message, stack, code), its texts cut: a message may quote a request's values. */
function clippedError(error: Error): Record<string, unknown> {
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    message: clip(error.message),
    ...(error.stack === undefined ? {} : { stack: error.stack.length <= 4 * MAX_LOGGED_CHARS ? error.stack : `${error.stack.slice(0, 4 * MAX_LOGGED_CHARS)}…` }),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
  };
}
