import { expect } from 'vitest';
import type { App } from '../../src/http/app.js';
import type { ListResponseType } from '../../src/routes/inventory/schemas.js';

/** `POST /v1/list` and `GET /v1/read` as a client calls them, with the token the test holds. */
export function inventoryClient(app: () => App, token: () => string) {
  const list = (body: Record<string, unknown>) =>
    app().inject({ method: 'POST', url: '/v1/list', headers: { authorization: `Bearer ${token()}` }, payload: body });
  return {
    list,
    /** A list request that must answer 200 (the body is shown when it does not). */
    listOk: async (body: Record<string, unknown>): Promise<ListResponseType> => {
      const res = await list(body);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<ListResponseType>();
    },
    read: (target: string, path: string, extra: Record<string, string> = {}) => {
      const query = new URLSearchParams({ target, path, ...extra }).toString();
      return app().inject({ method: 'GET', url: `/v1/read?${query}`, headers: { authorization: `Bearer ${token()}` } });
    },
  };
}
