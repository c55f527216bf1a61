import type { App, RoutePlugin } from '../http/app.js';
import { ProblemError } from '../http/problems.js';
import { TargetMemo } from './inventory/target-memo.js';
import type { ListService } from './inventory/list-service.js';
import { sendJsonPage } from './inventory/json-page.js';
import { ListRequestBody, ListResponse } from './inventory/schemas.js';
import { AUTHENTICATED_PROBLEMS, json, problemResponses } from '../http/openapi.js';
import { parseSelection } from '../inventory/query/selection.js';
import { NO_QUERY_PARAMETERS } from '../http/validation.js';

/** `POST /v1/list`. */
export function listRoutes(service: ListService): RoutePlugin {
  return async (app: App) => {
    const targets = new TargetMemo();
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
      const parsed = targets.parse(body.target);
      if (!parsed.ok) throw new ProblemError('VALIDATION_ERROR', `${parsed.detail}.`);
      const selection = parseSelection(body, parsed.target);
      if (!selection.ok) throw new ProblemError('VALIDATION_ERROR', `${selection.detail}.`);
      const page = await service.list({
        target: parsed.target,
        selection: selection.selection,
        after: body.after ?? null,
        waitMs: body.wait_timeout_ms ?? 0,
      });
      return sendJsonPage(request, reply, page);
    });
  };
}
