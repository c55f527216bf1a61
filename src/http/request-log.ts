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
      req: { method: request.method, url: request.url },
      // Beside req: Fastify's req serializer keeps only method and url.
      route: request.routeOptions.url ?? null,
      res: { statusCode: reply.statusCode },
      responseTime: Math.round(reply.elapsedTime * 100) / 100,
      account: principal?.accountName ?? null,
      session: attribution?.sessionId ?? null,
      client: {
        name: attribution?.clientName ?? null,
        version: attribution?.clientVersion ?? null,
        agent: attribution?.agent ?? null,
      },
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else this.completed.info({ reqId: request.id, ...line }, 'request completed');
  }
}
