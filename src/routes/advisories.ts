import { Type, type Static } from 'typebox';
import { sourceStatusWire, type AdvisorySourceStatus } from '../advisories/store.js';
import type { App, RoutePlugin } from '../http/app.js';
import { AUTHENTICATED_PROBLEMS, json, problemResponses } from '../http/openapi.js';
import { NO_QUERY_PARAMETERS } from '../http/validation.js';

const Timestamp = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const AdvisorySource = Type.Object(
  {
    ecosystem: Type.String({ description: 'The OSV ecosystem (`PyPI`, `Go`, `crates.io`, …).' }),
    advisories: Type.Integer({ minimum: 0, description: 'Advisories loaded (those of the last successful sync or import; a failed or running sync keeps them).' }),
    modified_max: { ...Timestamp, description: 'The newest `modified` among them; null when none are loaded.' },
    synced_at: { ...Timestamp, description: 'When the loaded set was last synced, found current (304) or imported; null when never.' },
    state: Type.Union([Type.Literal('ready'), Type.Literal('syncing'), Type.Literal('failed'), Type.Literal('empty')], {
      description: '`ready`: advisories loaded; `syncing`: a sync is running; `failed`: the last attempt failed (see `reason`), the loaded set stays in use; `empty`: nothing loaded.',
    }),
    reason: Type.Optional(Type.String({ description: 'Why the last attempt failed (`<code>: <detail>`); present only when `state` is `failed`.' })),
  },
  { additionalProperties: false },
);

export const AdvisoriesResponse = Type.Object({ sources: Type.Array(AdvisorySource) }, { additionalProperties: false });
export type AdvisoriesResponseType = Static<typeof AdvisoriesResponse>;

export interface AdvisoriesRouteDeps {
  /** The configured ecosystems and every one with a source row. */
  sources(): Promise<readonly AdvisorySourceStatus[]>;
}

/** `GET /v1/advisories`: what the advisory mirror holds, per ecosystem. */
export function advisoriesRoutes(deps: AdvisoriesRouteDeps): RoutePlugin {
  return async (app: App) => {
    app.get(
      '/advisories',
      {
        schema: {
          summary: 'What the advisory mirror holds per OSV ecosystem',
          description: 'Advisories are synced from ADVISORY_DB_URL (an OSV bulk layout) by the maintenance job, or imported with `pkgscope advisories import`.',
          operationId: 'advisories',
          tags: ['advisories'],
          querystring: NO_QUERY_PARAMETERS,
          response: { 200: json('The advisory sources, by ecosystem.', AdvisoriesResponse), ...problemResponses(...AUTHENTICATED_PROBLEMS, 503) },
          'x-service-cost': { weight: 1, class: 'light' },
        },
      },
      async (): Promise<AdvisoriesResponseType> => ({
        sources: (await deps.sources()).map(sourceStatusWire),
      }),
    );
  };
}
