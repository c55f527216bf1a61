import type { App, RoutePlugin } from '../http/app.js';
import { ProblemError } from '../http/problems.js';
import type { ListService } from '../inventory/list-service.js';
import { ListRequestBody } from '../inventory/schemas.js';
import { parseSelection } from '../inventory/selection.js';
import { parseTarget } from '../inventory/targets.js';

/** The spec's response body limit: a page over it is refused rather than cut. */
export const LIST_PAGE_LIMIT_BYTES = 2 * 1024 * 1024;

/** `POST /v1/list`. */
export function listRoutes(service: ListService): RoutePlugin {
  return async (app: App) => {
    app.post('/list', { config: { capability: 'list' }, schema: { body: ListRequestBody } }, async (request, reply) => {
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
      const json = JSON.stringify(page);
      if (Buffer.byteLength(json, 'utf8') > LIST_PAGE_LIMIT_BYTES) {
        throw new ProblemError('VALIDATION_ERROR', `The page is larger than ${LIST_PAGE_LIMIT_BYTES} bytes; ask again with a smaller limit.`);
      }
      return reply.type('application/json; charset=utf-8').send(json);
    });
  };
}
