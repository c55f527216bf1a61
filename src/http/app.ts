import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App, RoutePlugin } from './app-types.js';
import { TokenUsageRecorder } from '../accounts/tokens.js';
import type { Redis } from 'ioredis';
import type { DatabaseHandle } from '../db/client.js';
import type { Logger } from '../logger.js';
import { readAttribution } from './attribution.js';
import { authentication, type AuthConfig } from './auth.js';
import { errorHandler } from './error-handler.js';
import { addMethodNotAllowedRoutes, collectRouteMethods } from './method-not-allowed.js';
import { PROBLEM_MEDIA_TYPE, ProblemError, problemDocument, sendProblem } from './problems.js';
import { registerOpenApi } from './openapi.js';
import { rateLimitHook, type RateLimitConfig } from './rate-limit.js';
import { RequestLogController, requestLogger } from './request-log.js';
import { validatorCompiler } from './validation.js';
import './types.js';

export type { App, RoutePlugin } from './app-types.js';

/** What the app reads of the configuration. */
export interface AppConfig extends AuthConfig {
  readonly trustProxyHops: number;
  readonly redisPrefix: string;
  readonly rateLimit: RateLimitConfig;
}

export interface AppDeps {
  readonly config: AppConfig;
  readonly database: DatabaseHandle;
  readonly logger: Logger;
  /** Routes under `/v1`, behind bearer authentication. */
  readonly v1Routes?: readonly RoutePlugin[];
  /** Routes at the root without authentication (health, ops). */
  readonly publicRoutes?: readonly RoutePlugin[];
  /** Routes at the root behind the same authentication, rate limits and capabilities as `/v1` (`/mcp`). */
  readonly rootRoutes?: readonly RoutePlugin[];
  /** Request id source; replaceable so tests can make identity creation fail. */
  readonly newRequestId?: () => string;
  /** Milliseconds clock for time-based throttles (token usage); tests move it. */
  readonly now?: () => number;
  /** Runs when closing starts, before the server waits for open connections (ends event streams). */
  readonly preClose?: () => void;
  /** The shared Redis for rate-limit counters; without it no rate limit applies. */
  readonly rateLimitRedis?: Redis;
  /** Told of every answered request (metrics): route pattern, not URL. */
  readonly observeRequest?: (method: string, route: string, statusCode: number, seconds: number) => void;
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

/**
 * Draining: once closing starts, answers carry `Connection: close` and keep-alive sockets that
 * fall idle are closed as they do (the server stops accepting at once; requests in flight are
 * answered; open event streams end first, through `preClose`).
 */
function drainOnClose(app: App, preClose: (() => void) | undefined): void {
  let closing = false;
  let sweeper: NodeJS.Timeout | null = null;
  app.addHook('preClose', async () => {
    closing = true;
    preClose?.();
    sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
    sweeper.unref();
  });
  // A callback hook, not an async one: it runs on every answer and never waits.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onClose', async () => {
    if (sweeper !== null) clearInterval(sweeper);
  });
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const loggerInstance: FastifyBaseLogger = deps.logger;
  const app: App = Fastify({
    loggerInstance,
    logController: new RequestLogController(deps.logger),
    childLoggerFactory: requestLogger,
    genReqId: safeRequestIds(deps.newRequestId ?? randomUUID),
    requestIdHeader: false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    return503OnClosing: false,
    // The client address is the one this many proxies (load balancers) in front of us report.
    trustProxy: deps.config.trustProxyHops > 0 ? (_address: string, hop: number) => hop < deps.config.trustProxyHops : false,
    clientErrorHandler,
    frameworkErrors: (error, request, reply) => {
      standardHeaders(request, reply);
      errorHandler(error, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document answers; they never reshape them.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await registerOpenApi(app);
  app.setErrorHandler(errorHandler);
  // Only JSON (and, where a route adds it, multipart) bodies are accepted.
  app.removeContentTypeParser('text/plain');

  app.decorateRequest('principal', null);
  app.decorateRequest('attribution', null);
  app.decorateRequest('sessionHeaderValid', true);

  // A callback hook: it runs on every request and never waits.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.id === NO_IDENTITY) {
      // The spec's empty 500: no body, no X-Request-ID.
      request.log.error('request identity could not be created');
      reply.hijack();
      reply.raw.writeHead(500, { 'cache-control': 'no-store', 'content-length': '0' });
      reply.raw.end();
      // A hijacked reply ends the hook chain here.
      done();
      return;
    }
    standardHeaders(request, reply);
    const { attribution, sessionValid } = readAttribution(request.raw);
    request.attribution = attribution;
    request.sessionHeaderValid = sessionValid;
    done();
  });

  app.setNotFoundHandler(async (request, reply) =>
    sendProblem(request, reply, new ProblemError('NOT_FOUND', 'No operation exists at this path.')),
  );

  const observe = deps.observeRequest;
  if (observe) {
    app.addHook('onResponse', (request, reply, done) => {
      observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }

  drainOnClose(app, deps.preClose);

  const routes = collectRouteMethods(app);
  for (const plugin of deps.publicRoutes ?? []) await app.register(plugin);
  const tokenUsage = new TokenUsageRecorder(deps.database.db, deps.now);
  const guarded = (plugins: readonly RoutePlugin[]) => async (scope: App) => {
    const { identify, authorize } = authentication({ db: deps.database.db, config: deps.config, tokenUsage });
    scope.addHook('onRequest', identify);
    const limit = deps.rateLimitRedis ? rateLimitHook({ config: deps.config.rateLimit, redis: deps.rateLimitRedis, prefix: deps.config.redisPrefix }) : null;
    if (limit) scope.addHook('onRequest', limit);
    scope.addHook('onRequest', authorize);
    for (const plugin of plugins) await scope.register(plugin);
  };
  await app.register(guarded(deps.v1Routes ?? []), { prefix: '/v1' });
  if ((deps.rootRoutes ?? []).length > 0) await app.register(guarded(deps.rootRoutes ?? []));
  addMethodNotAllowedRoutes(app, routes);
  return app;
}
