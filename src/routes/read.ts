import type { App, RoutePlugin } from '../http/app.js';
import { ProblemError } from '../http/problems.js';
import { TargetMemo } from './inventory/target-memo.js';
import { sendJsonPage } from './inventory/json-page.js';
import type { ListService } from './inventory/list-service.js';
import { READ_MAX_LENGTH, type ReadService } from './inventory/read-service.js';
import { ReadQuery, ReadResponse } from './inventory/schemas.js';
import { AUTHENTICATED_PROBLEMS, json, problemResponses } from '../http/openapi.js';

/** `GET /v1/read?target=…&path=…[&offset=…&length=…]`: the target and path of a list entry's read action. */
export function readRoutes(list: ListService, reader: ReadService): RoutePlugin {
  return async (app: App) => {
    const targets = new TargetMemo();
    const schema = {
      summary: 'Read one file or page of a listed target, byte for byte',
      operationId: 'read',
      tags: ['inventory'],
      querystring: ReadQuery,
      response: { 200: json('The content (UTF-8 text, or base64), possibly a slice.', ReadResponse), ...problemResponses(...AUTHENTICATED_PROBLEMS, 404, 409, 422, 502, 504) },
      'x-service-cost': { weight: 1, class: 'light' },
    } as const;
    app.get('/read', { config: { capability: 'read' }, schema }, async (request, reply) => {
      const query = request.query;
      const parsed = targets.parse(query.target);
      if (!parsed.ok) throw new ProblemError('VALIDATION_ERROR', `${parsed.detail}.`);
      const served = await list.served(parsed.target);
      const page = await reader.answer(
        { target: parsed.target, path: query.path, offset: query.offset ?? 0, length: query.length ?? READ_MAX_LENGTH },
        served,
      );
      return sendJsonPage(request, reply, page);
    });
  };
}
