import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';
import { serialisedInfoWriter, type Logger } from '../logger.js';

/** The completed line's fields (reqId aside), as an object: what an errored request's line holds too. */
export function requestLineFields(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  const { attribution, principal } = request;
  return {
    // The path only: a query string carries what callers sent (paths, patterns), which can be
    // megabytes long and is theirs to keep out of our logs.
    req: { method: request.method, url: clip(pathOf(request.url)) },
    // Beside req: Fastify's req serializer keeps only method and url.
    route: request.routeOptions.url ?? null,
    res: { statusCode: reply.statusCode },
    responseTime: responseTime(reply),
    account: clipOrNull(principal?.accountName),
    session: clipOrNull(attribution?.sessionId),
    client: {
      name: clipOrNull(attribution?.clientName),
      version: clipOrNull(attribution?.clientVersion),
      agent: clipOrNull(attribution?.agent),
    },
  };
}

/** The same fields, with reqId first, serialised as pino writes them (`,"reqId":…,"req":{…}…`). */
export function serialisedRequestLine(request: FastifyRequest, reply: FastifyReply): string {
  const { attribution, principal } = request;
  return (
    `,"reqId":${JSON.stringify(request.id)}` +
    `,"req":{"method":${JSON.stringify(request.method)},"url":${JSON.stringify(clip(pathOf(request.url)))}}` +
    `,"route":${text(request.routeOptions.url)}` +
    `,"res":{"statusCode":${number(reply.statusCode)}}` +
    `,"responseTime":${number(responseTime(reply))}` +
    `,"account":${clippedText(principal?.accountName)}` +
    `,"session":${clippedText(attribution?.sessionId)}` +
    `,"client":{"name":${clippedText(attribution?.clientName)},"version":${clippedText(attribution?.clientVersion)},"agent":${clippedText(attribution?.agent)}}`
  );
}

/**
 * One log line per request, written when it completes, carrying the request id, the account,
 * the session and the client attribution. Incoming-request lines are not written.
 */
export class RequestLogController extends LogController {
  /**
   * The completed line's fields are those above and no others, none of them a credential or a
   * file's content: the line is serialised here and written straight to the logger's stream,
   * without the object, the serializers and the redaction every other line goes through (they
   * were about a tenth of a list request's CPU).
   */
  private readonly completed: (fields: string) => void;

  constructor(logger: Logger) {
    super();
    this.completed = serialisedInfoWriter(logger, 'request completed');
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ ...requestLineFields(request, reply), err: clippedError(error) }, 'request errored');
    else this.completed(serialisedRequestLine(request, reply));
  }
}

type LogArguments = Parameters<FastifyBaseLogger['info']>;

/**
 * A request's logger, made a pino child (whose bindings are serialised, through the redaction,
 * when it is made) only once something is logged through it: most requests log nothing but their
 * completed line, which the controller writes itself. Fastify's childLoggerFactory.
 */
export class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: LogArguments): void {
    this.logger.fatal(...args);
  }

  error(...args: LogArguments): void {
    this.logger.error(...args);
  }

  warn(...args: LogArguments): void {
    this.logger.warn(...args);
  }

  info(...args: LogArguments): void {
    this.logger.info(...args);
  }

  debug(...args: LogArguments): void {
    this.logger.debug(...args);
  }

  trace(...args: LogArguments): void {
    this.logger.trace(...args);
  }

  silent(...args: LogArguments): void {
    this.logger.silent(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify's childLoggerFactory: a deferred child per request. */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options);
}

function responseTime(reply: FastifyReply): number {
  return Math.round(reply.elapsedTime * 100) / 100;
}

/** A number as JSON (pino writes a non-finite one as null). */
function number(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

function text(value: string | null | undefined): string {
  return value === null || value === undefined ? 'null' : JSON.stringify(value);
}

function clippedText(value: string | null | undefined): string {
  return text(clipOrNull(value));
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
