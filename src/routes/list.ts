import type { App, RoutePlugin } from '../http/app.js';
import { ProblemError } from '../http/problems.js';
import type { ListService } from '../inventory/list-service.js';
import { ListRequestBody, ListResponse } from '../inventory/schemas.js';
import { AUTHENTICATED_PROBLEMS, json, problemResponses } from '../http/openapi.js';
import { parseSelection } from '../inventory/selection.js';
import { NO_QUERY_PARAMETERS } from '../http/validation.js';
import { parseTarget } from '../inventory/targets.js';

/** Whether an Accept-Encoding header admits gzip (with a non-zero q). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** `POST /v1/list`. */
export function listRoutes(service: ListService): RoutePlugin {
  return async (app: App) => {
    const schema = {
      summary: 'List the files, directories or pages of a package, repository or documentation site',
      operationId: 'list',
      tags: ['inventory'],
      body: ListRequestBody,
      querystring: NO_QUERY_PARAMETERS,
      response: { 200: json('One page of entries, with the target\'s resolution and preparation state.', ListResponse), ...problemResponses(...AUTHENTICATED_PROBLEMS, 404, 409, 422, 502, 504) },
      'x-service-cost': { weight: 1, class: 'light' },
    } as const;
    app.post('/list', { config: { capability: 'list' }, schema }, async (request, reply) => {
      const body = request.body;
      if (body.target.trim() === '') throw new ProblemError('VALIDATION_ERROR', 'target must not be blank.');
      const parsed = parseTarget(body.target);
      if (!parsed.ok) throw new ProblemError('VALIDATION_ERROR', `${parsed.detail}.`);
      const selection = parseSelection(body, parsed.target);
      if (!selection.ok) throw new ProblemError('VALIDATION_ERROR', `${selection.detail}.`);
      const page = await service.list({
        target: parsed.target,
        selection: selection.selection,
        after: body.after ?? null,
        waitMs: body.wait_timeout_ms ?? 0,
      });
      reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding');
      // Pages are cached with their gzip form, so compressing costs nothing on repeats.
      if (page.json.length > 1024 && acceptsGzip(request.headers['accept-encoding'])) {
        return reply.header('content-encoding', 'gzip').send(page.gzip());
      }
      return reply.send(page.json);
    });
  };
}
