import type { App, RoutePlugin } from '../http/app.js';
import { AUTHENTICATED_PROBLEMS, json, problemResponses } from '../http/openapi.js';
import { ProblemError } from '../http/problems.js';
import { NO_QUERY_PARAMETERS } from '../http/validation.js';
import { GrepRequestBody, GrepResponse, type GrepRequestBodyType } from './inventory/grep-schemas.js';
import type { GrepQuery, GrepService } from './inventory/grep-service.js';
import { parseSelection } from '../inventory/query/selection.js';
import { parseTarget } from '../inventory/targets.js';

/** The grep request's own rules on top of its schema: target, selection and page shape. */
export function grepQueryOf(body: GrepRequestBodyType): GrepQuery {
  if (body.target.trim() === '') throw new ProblemError('VALIDATION_ERROR', 'target must not be blank.');
  const parsed = parseTarget(body.target);
  if (!parsed.ok) throw new ProblemError('VALIDATION_ERROR', `${parsed.detail}.`);
  const selection = parseSelection({ ...body, recursive: true, limit: body.limit ?? 100 }, parsed.target);
  if (!selection.ok) throw new ProblemError('VALIDATION_ERROR', `${selection.detail}.`);
  return {
    target: parsed.target,
    selection: selection.selection,
    pattern: { pattern: body.pattern, regex: body.regex ?? false, caseSensitive: body.case_sensitive ?? true },
    contextLines: body.context_lines ?? 0,
    after: body.after ?? null,
    waitMs: body.wait_timeout_ms ?? 0,
  };
}

/** `POST /v1/grep`. */
export function grepRoutes(service: GrepService): RoutePlugin {
  return async (app: App) => {
    const schema = {
      summary: 'Search the text of a package, repository or site for exact text or an RE2 regular expression',
      operationId: 'grep',
      tags: ['inventory'],
      body: GrepRequestBody,
      querystring: NO_QUERY_PARAMETERS,
      response: { 200: json('One page of matches in path then line order.', GrepResponse), ...problemResponses(...AUTHENTICATED_PROBLEMS, 404, 409, 422, 502, 503, 504) },
      'x-service-cost': { weight: 5, class: 'standard' },
    } as const;
    app.post('/grep', { config: { capability: 'read' }, schema }, async (request) => service.grep(grepQueryOf(request.body)));
  };
}
