import { Type, type Static } from 'typebox';
import type { App, RoutePlugin } from '../http/app.js';
import { AUTHENTICATED_PROBLEMS, json, problemResponses } from '../http/openapi.js';
import { searchLanguages } from '../inventory/query/languages.js';

export const LanguagesQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 100, description: 'Matched against ids, aliases, extensions (`ts`, `.ts`) and file names, case-insensitively.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'At most this many languages, best match first.' })),
  },
  { additionalProperties: false },
);
export type LanguagesQueryType = Static<typeof LanguagesQuery>;

export const LanguageItem = Type.Object(
  {
    id: Type.String({ description: 'What the `languages` filter takes and list entries carry as `language`.' }),
    name: Type.String({ description: 'Display name (GitHub Linguist).' }),
    aliases: Type.Array(Type.String()),
    extensions: Type.Array(Type.String()),
    filenames: Type.Array(Type.String()),
    type: Type.String({ description: '`programming`, `markup`, `data` or `prose`.' }),
  },
  { additionalProperties: false },
);

export const LanguagesResponse = Type.Object({ languages: Type.Array(LanguageItem) }, { additionalProperties: false });
export type LanguagesResponseType = Static<typeof LanguagesResponse>;

/** `GET /v1/languages?q=…&limit=…`: the language ids the `languages` filter accepts, searched. */
export function languagesRoutes(): RoutePlugin {
  return async (app: App) => {
    app.get(
      '/languages',
      {
        config: { capability: 'list' },
        schema: {
          summary: 'Search the language identifiers the languages filter accepts',
          operationId: 'languages',
          tags: ['inventory'],
          querystring: LanguagesQuery,
          response: { 200: json('Matching languages, best first.', LanguagesResponse), ...problemResponses(...AUTHENTICATED_PROBLEMS) },
          'x-service-cost': { weight: 1, class: 'light' },
        },
      },
      async (request): Promise<LanguagesResponseType> => ({
        languages: searchLanguages(request.query.q, request.query.limit ?? 50).map((l) => ({ ...l, aliases: [...l.aliases], extensions: [...l.extensions], filenames: [...l.filenames] })),
      }),
    );
  };
}
