import type { FastifyInstance, HTTPMethods, RouteOptions } from 'fastify';
import { ProblemError, sendProblem } from './problems.js';

const METHODS: readonly HTTPMethods[] = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'];

/** Paths of embedded third-party UIs (the queue dashboard), which answer methods their own way. */
const FOREIGN_PREFIX = '/ops/queues';

/** Records the methods of every route added after this call, by URL pattern. */
export function collectRouteMethods(app: FastifyInstance): Map<string, Set<string>> {
  const routes = new Map<string, Set<string>>();
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.methodNotAllowed === true || route.url.startsWith(FOREIGN_PREFIX)) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const known = routes.get(route.url) ?? new Set<string>();
    for (const method of methods) known.add(method.toUpperCase());
    if (known.has('GET')) known.add('HEAD');
    routes.set(route.url, known);
  });
  return routes;
}

/**
 * For each known path, answers the methods it does not support with 405 METHOD_NOT_ALLOWED and
 * an `Allow` header. The answer is given in onRequest, before any body is read or parsed.
 */
export function addMethodNotAllowedRoutes(app: FastifyInstance, routes: ReadonlyMap<string, ReadonlySet<string>>): void {
  for (const [url, allowed] of [...routes]) {
    const missing = METHODS.filter((m) => !allowed.has(m));
    if (missing.length === 0) continue;
    const allow = [...allowed].sort().join(', ');
    app.route({
      method: missing,
      url,
      config: { methodNotAllowed: true },
      onRequest: async (request, reply) => {
        sendProblem(
          request,
          reply,
          new ProblemError('METHOD_NOT_ALLOWED', `${request.method} is not supported here; use ${allow}.`, {
            headers: { allow },
          }),
        );
        return reply;
      },
      handler: async () => undefined,
    });
  }
}
