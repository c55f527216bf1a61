import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import { TokenUsageRecorder } from '../accounts/tokens.js';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import type { Logger } from '../logger.js';
import { readAttribution } from './attribution.js';
import { authenticate } from './auth.js';
import { errorHandler } from './error-handler.js';
import { addMethodNotAllowedRoutes, collectRouteMethods } from './method-not-allowed.js';
import { PROBLEM_MEDIA_TYPE, ProblemError, problemDocument, sendProblem } from './problems.js';
import { RequestLogController } from './request-log.js';
import { validatorCompiler } from './validation.js';
import './types.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** A route module: registered inside the authenticated `/v1` scope or at the root. */
export type RoutePlugin = (app: App) => Promise<void>;

export interface AppDeps {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly logger: Logger;
  /** Routes under `/v1`, behind bearer authentication. */
  readonly v1Routes?: readonly RoutePlugin[];
  /** Routes at the root without authentication (health, ops). */
  readonly publicRoutes?: readonly RoutePlugin[];
  /** Request id source; replaceable so tests can make identity creation fail. */
  readonly newRequestId?: () => string;
  /** Milliseconds clock for time-based throttles (token usage); tests move it. */
  readonly now?: () => number;
  /** Runs when closing starts, before the server waits for open connections (ends event streams). */
  readonly preClose?: () => void;
}

/** The default body limit of JSON operations (the spec's 2 MiB); routes may set their own. */
export const DEFAULT_BODY_LIMIT = 2 * 1024 * 1024;

/** genReqId must not throw; an empty id marks a request whose identity could not be created. */
const NO_IDENTITY = '';

function safeRequestIds(make: () => string): () => string {
  return () => {
    try {
      const id = make();
      return typeof id === 'string' ? id : NO_IDENTITY;
    } catch {
      return NO_IDENTITY;
    }
  };
}

function standardHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.header('cache-control', 'no-store');
}

/** Malformed HTTP that never became a request still gets a problem document, not a bare close. */
function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const id = randomUUID();
  const body = JSON.stringify(
    problemDocument(new ProblemError('VALIDATION_ERROR', 'The HTTP request is malformed or too large.'), id),
  );
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: ${PROBLEM_MEDIA_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-ID: ${id}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const loggerInstance: FastifyBaseLogger = deps.logger;
  const app: App = Fastify({
    loggerInstance,
    logController: new RequestLogController(),
    genReqId: safeRequestIds(deps.newRequestId ?? randomUUID),
    requestIdHeader: false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    return503OnClosing: false,
    clientErrorHandler,
    frameworkErrors: (error, request, reply) => {
      standardHeaders(request, reply);
      errorHandler(error, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  // Only JSON (and, where a route adds it, multipart) bodies are accepted.
  app.removeContentTypeParser('text/plain');

  app.decorateRequest('principal', null);
  app.decorateRequest('attribution', null);
  app.decorateRequest('sessionHeaderValid', true);

  app.addHook('onRequest', async (request, reply) => {
    if (request.id === NO_IDENTITY) {
      // The spec's empty 500: no body, no X-Request-ID.
      request.log.error('request identity could not be created');
      reply.hijack();
      reply.raw.writeHead(500, { 'cache-control': 'no-store', 'content-length': '0' });
      reply.raw.end();
      return reply;
    }
    standardHeaders(request, reply);
    const { attribution, sessionValid } = readAttribution(request.raw);
    request.attribution = attribution;
    request.sessionHeaderValid = sessionValid;
    return undefined;
  });

  app.setNotFoundHandler(async (request, reply) =>
    sendProblem(request, reply, new ProblemError('NOT_FOUND', 'No operation exists at this path.')),
  );

  const preClose = deps.preClose;
  if (preClose) app.addHook('preClose', async () => preClose());

  const routes = collectRouteMethods(app);
  for (const plugin of deps.publicRoutes ?? []) await app.register(plugin);
  const tokenUsage = new TokenUsageRecorder(deps.database.db, deps.now);
  await app.register(
    async (v1: App) => {
      v1.addHook('onRequest', authenticate({ db: deps.database.db, config: deps.config, tokenUsage }));
      for (const plugin of deps.v1Routes ?? []) await v1.register(plugin);
    },
    { prefix: '/v1' },
  );
  addMethodNotAllowedRoutes(app, routes);
  return app;
}
