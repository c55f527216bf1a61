import type { App, RoutePlugin } from '../http/app.js';
import { ProblemError } from '../http/problems.js';
import type { ListService } from '../inventory/list-service.js';
import { READ_MAX_LENGTH, type ReadService } from '../inventory/read-service.js';
import { ReadQuery } from '../inventory/schemas.js';
import { parseTarget } from '../inventory/targets.js';

/** `GET /v1/read?target=…&path=…[&offset=…&length=…]`: the target and path of a list entry's read action. */
export function readRoutes(list: ListService, reader: ReadService): RoutePlugin {
  return async (app: App) => {
    app.get('/read', { config: { capability: 'read' }, schema: { querystring: ReadQuery } }, async (request) => {
      const query = request.query;
      const parsed = parseTarget(query.target);
      if (!parsed.ok) throw new ProblemError('VALIDATION_ERROR', `${parsed.detail}.`);
      const served = await list.served(parsed.target);
      return reader.read(
        { target: parsed.target, path: query.path, offset: query.offset ?? 0, length: query.length ?? READ_MAX_LENGTH },
        served,
      );
    });
  };
}
