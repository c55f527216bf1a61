import { createHash, timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, RoutePlugin } from '../http/app.js';
import { ProblemError, sendProblem } from '../http/problems.js';
import type { Metrics } from '../ops/metrics.js';

export interface OpsRouteDeps {
  readonly metrics: Metrics;
  /** Queues shown on the dashboard; none: no dashboard (worker processes). */
  readonly queues: readonly Queue[];
  /** Required as Bearer token or Basic password; null leaves the endpoints open (a private ops port). */
  readonly token: string | null;
  readonly queuesWritable: boolean;
}

export const QUEUE_DASHBOARD_PATH = '/ops/queues';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Whether the Authorization header carries the ops token, as a bearer token or a Basic password (browsers). */
export function opsAuthorized(header: string | undefined, token: string): boolean {
  if (header === undefined) return false;
  const [scheme, value = ''] = header.trim().split(/\s+/, 2);
  let given: string | null = null;
  if (scheme?.toLowerCase() === 'bearer') given = value;
  else if (scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    given = decoded.slice(decoded.indexOf(':') + 1);
  }
  // Hashes have equal length, so the comparison is constant-time whatever was sent.
  return given !== null && timingSafeEqual(digest(given), digest(token));
}

/**
 * Operations endpoints: `GET /metrics` (Prometheus text) and the Bull Board queue dashboard at
 * `/ops/queues` (read-only unless configured otherwise), behind the ops token when one is set.
 * A refused request is a 401 problem whose `WWW-Authenticate` lets a browser ask for the token
 * (any user name, the token as password).
 */
export function opsRoutes(deps: OpsRouteDeps): RoutePlugin {
  return async (app: App) => {
    const { token } = deps;
    // Answers directly rather than throwing: the dashboard's plugin has an error handler of its own.
    const guard = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
      if (token === null || opsAuthorized(request.headers.authorization, token)) return undefined;
      const problem = new ProblemError('AUTHENTICATION_REQUIRED', 'The ops endpoints need the ops token (Bearer, or as Basic password).', {
        headers: { 'www-authenticate': 'Basic realm="pkgscope-ops", charset="UTF-8"' },
      });
      sendProblem(request, reply, problem);
      return reply;
    };
    await app.register(async (ops: App) => {
      ops.addHook('onRequest', guard);
      ops.get('/metrics', async (_request, reply) => reply.type(deps.metrics.contentType).send(await deps.metrics.scrape()));
      if (deps.queues.length === 0) return;
      const board = new FastifyAdapter();
      createBullBoard({
        queues: deps.queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: !deps.queuesWritable })),
        serverAdapter: board,
        options: { uiConfig: { boardTitle: 'pkgscope queues' } },
      });
      board.setBasePath(QUEUE_DASHBOARD_PATH);
      await ops.register(board.registerPlugin(), { prefix: QUEUE_DASHBOARD_PATH });
    });
  };
}
