import type { App, RoutePlugin } from '../http/app.js';
import { OPENAPI_PATH } from '../http/openapi.js';

/** `GET /v1/openapi.json`: the OpenAPI 3.1 document, without authentication (clients read it first). */
export function openApiRoutes(): RoutePlugin {
  return async (app: App) => {
    app.get(OPENAPI_PATH, async (_request, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())));
  };
}
