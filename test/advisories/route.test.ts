import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdvisoryError } from '../../src/advisories/errors.js';
import { AdvisoryStore } from '../../src/advisories/store.js';
import type { Database } from '../../src/db/client.js';
import { advisoriesRoutes } from '../../src/routes/advisories.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let token: string;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The database of the app under test, known once it started (the route reads it lazily). */
let database: Database | null = null;

beforeAll(async () => {
  t = await startTestApp({
    deps: {
      v1Routes: [
        advisoriesRoutes({
          sources: () => {
            if (database === null) throw new Error('not started');
            return new AdvisoryStore(database).sources(['Go', 'PyPI', 'npm']);
          },
        }),
      ],
    },
  });
  database = t.database.db;
  token = await t.token('advisories-reader', { capabilities: ['list'] });
  // Go: loaded, then a failed attempt (its set stays); PyPI: loaded; npm: never synced.
  const store = new AdvisoryStore(t.database.db);
  await store.exclusively(true, async () => {
    for (const [ecosystem, id, name] of [
      ['Go', 'GO-2022-0236', 'net/http'],
      ['PyPI', 'PYSEC-2019-217', 'jinja2'],
    ] as const) {
      const staged = await store.stage(ecosystem);
      const doc = { id, modified: '2024-06-01T10:00:00Z', affected: [{ package: { ecosystem, name } }] };
      await staged.add({ id, modified: doc.modified, text: JSON.stringify(doc), names: [name] });
      await staged.commit({ origin: 'test' });
    }
    await store.markFailed('Go', new AdvisoryError('corrupt_archive', 'http://mirror/Go/all.zip is not a readable zip archive'));
  });
});
afterAll(async () => {
  await t.close();
});

describe('GET /v1/advisories', () => {
  it('needs a bearer token', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/v1/advisories' });
    expect(anonymous.statusCode).toBe(401);
    const wrong = await t.app.inject({ method: 'GET', url: '/v1/advisories', headers: { authorization: 'Bearer pks_nope' } });
    expect(wrong.statusCode).toBe(401);
  });

  it('answers the sources in the shape of the issue, a failure with its reason', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/advisories', headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ sources: Record<string, unknown>[] }>();
    expect(Object.keys(body)).toEqual(['sources']);
    expect(body.sources.map((s) => s['ecosystem'])).toEqual(['Go', 'PyPI', 'npm']);
    const [go, pypi, npm] = body.sources;
    expect(Object.keys(pypi ?? {}).sort()).toEqual(['advisories', 'ecosystem', 'modified_max', 'state', 'synced_at']);
    expect(pypi).toMatchObject({ ecosystem: 'PyPI', advisories: 1, modified_max: '2024-06-01T10:00:00.000Z', state: 'ready' });
    expect(pypi?.['synced_at']).toMatch(ISO);
    expect(go).toMatchObject({ ecosystem: 'Go', advisories: 1, state: 'failed', reason: 'corrupt_archive: http://mirror/Go/all.zip is not a readable zip archive' });
    expect(npm).toEqual({ ecosystem: 'npm', advisories: 0, modified_max: null, synced_at: null, state: 'empty' });
  });

  it('takes no query parameters', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/advisories?ecosystem=Go', headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(400);
  });
});
