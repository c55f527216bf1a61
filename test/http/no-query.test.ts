import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';

let h: JobsHarness;
let token: string;

beforeAll(async () => {
  h = await startJobsHarness();
  token = await h.token('no-query');
});
afterAll(() => h.close());

const JOBS = '/v1/experimental/lockfile-jobs';

describe('operations that take no query parameters', () => {
  it.each([
    ['POST', `${JOBS}?fields=id`],
    ['GET', `${JOBS}/${randomUUID()}?fields=state`],
    ['GET', `${JOBS}/${randomUUID()}/result?format=spdx`],
    ['GET', `${JOBS}/${randomUUID()}/events?x`],
    ['POST', '/v1/list?fields=path'],
  ] as const)('%s %s is 400 VALIDATION_ERROR, never silently ignored', async (method, url) => {
    const payload = method === 'POST' ? (url.startsWith('/v1/list') ? { target: 'npm:x' } : { format: 'text', files: [{ path: 'package.json', content: '{}' }] }) : undefined;
    const res = await h.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(res.json<{ detail: string }>().detail).toMatch(/^query parameter \w+ is not accepted/);
  });

  it('still answers the same requests without a query', async () => {
    const res = await h.app.inject({ method: 'GET', url: `${JOBS}/${randomUUID()}`, headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(404);
  });
});
