import type { App, RoutePlugin } from '../http/app.js';
import { AUTHENTICATED_PROBLEMS, json, problemResponses } from '../http/openapi.js';
import { ProblemError } from '../http/problems.js';
import { NO_QUERY_PARAMETERS } from '../http/validation.js';
import { CompareRequestBody, CompareResponse, DiffQuery, DiffResponse, type CompareRequestBodyType } from './inventory/compare-schemas.js';
import type { CompareQuery, CompareService } from './inventory/compare-service.js';
import { parseSelection } from '../inventory/query/selection.js';
import { parseTarget, type ListTarget } from '../inventory/targets.js';

function targetOf(field: string, text: string): ListTarget {
  if (text.trim() === '') throw new ProblemError('VALIDATION_ERROR', `${field} must not be blank.`);
  const parsed = parseTarget(text);
  if (!parsed.ok) throw new ProblemError('VALIDATION_ERROR', `${field}: ${parsed.detail}.`);
  return parsed.target;
}

export function compareQueryOf(body: CompareRequestBodyType): CompareQuery {
  const base = targetOf('base', body.base);
  const head = targetOf('head', body.head);
  const selection = parseSelection({ ...body, recursive: true, limit: body.limit ?? 100 }, base);
  if (!selection.ok) throw new ProblemError('VALIDATION_ERROR', `${selection.detail}.`);
  return { base, head, selection: selection.selection, after: body.after ?? null, waitMs: body.wait_timeout_ms ?? 0 };
}

/** `POST /v1/experimental/compare` and `GET /v1/experimental/compare/diff`. */
export function compareRoutes(service: CompareService): RoutePlugin {
  return async (app: App) => {
    app.post(
      '/experimental/compare',
      {
        config: { capability: 'read' },
        schema: {
          summary: 'The paths added, removed and modified between two versions of a package or two refs of a repository',
          operationId: 'compare',
          tags: ['inventory'],
          body: CompareRequestBody,
          querystring: NO_QUERY_PARAMETERS,
          response: { 200: json('One page of changed paths, with both read actions.', CompareResponse), ...problemResponses(...AUTHENTICATED_PROBLEMS, 404, 409, 422, 502, 504) },
          'x-service-cost': { weight: 2, class: 'standard' },
        },
      },
      async (request) => service.compare(compareQueryOf(request.body)),
    );
    app.get(
      '/experimental/compare/diff',
      {
        config: { capability: 'read' },
        schema: {
          summary: 'The unified diff of one path between two prepared snapshots',
          operationId: 'compareDiff',
          tags: ['inventory'],
          querystring: DiffQuery,
          response: { 200: json('The diff, or why there is none (binary, over the bound).', DiffResponse), ...problemResponses(...AUTHENTICATED_PROBLEMS, 404, 409, 502) },
          'x-service-cost': { weight: 2, class: 'standard' },
        },
      },
      async (request) =>
        service.diff({ base: targetOf('base', request.query.base), head: targetOf('head', request.query.head), path: request.query.path, context: request.query.context ?? 3 }),
    );
  };
}
