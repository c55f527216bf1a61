import { Type } from 'typebox';
import type { App, RoutePlugin } from '../../src/http/app.js';

/** Routes that exercise the shared HTTP conventions without depending on any operation. */
export const probeRoutes: RoutePlugin = async (app: App) => {
  app.post(
    '/probe',
    {
      bodyLimit: 1024,
      config: { capability: 'list' },
      schema: {
        body: Type.Object(
          {
            name: Type.String({ minLength: 1 }),
            count: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
            tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => ({ echo: request.body }),
  );
  app.get('/probe', { config: { capability: 'read' } }, async () => ({ ok: true }));
  app.get('/probe/boom', { config: { capability: 'read' } }, async () => {
    throw new Error('secret internal detail at /srv/pkgscope/db.ts:42');
  });
  app.get('/probe/open', async () => ({ ok: true }));
};
