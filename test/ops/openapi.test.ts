import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoutePlugin } from '../../src/http/app.js';
import { buildApp, type App } from '../../src/http/app.js';
import { apiAppDeps } from '../../src/processes/routes.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { packageTarball } from '../helpers/tarball.js';

interface Operation {
  readonly operationId?: string;
  readonly 'x-service-cost'?: { weight: number; class: string };
  readonly requestBody?: { content: Record<string, { schema: object }> };
  readonly parameters?: { in: string; name: string; required?: boolean; schema: object }[];
  readonly responses: Record<string, { content?: Record<string, { schema: object }> }>;
  readonly security?: unknown[];
}
interface OpenApiDocument {
  readonly openapi: string;
  readonly info: { version: string; title: string };
  readonly paths: Record<string, Record<string, Operation>>;
}

let h: JobsHarness;
let app: App;
let doc: OpenApiDocument;
let token: string;
const registered: { method: string; url: string; hidden: boolean }[] = [];
const ajv = new Ajv2020({ strict: false, allErrors: true });
// The package's types declare a default export; at run time the function is the module itself.
(addFormatsModule as unknown as typeof addFormatsModule.default)(ajv);

/** Records every route as it is added (at the root, so it sees the /v1 scope too). */
const recorder: RoutePlugin = Object.assign(
  async (root: App) => {
    root.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) {
        registered.push({ method, url: route.url, hidden: route.config?.methodNotAllowed === true || method === 'HEAD' });
      }
    });
  },
  { [Symbol.for('skip-override')]: true },
);

beforeAll(async () => {
  h = await startJobsHarness({}, { packages: { 'left-pad': { versions: { '1.3.0': { _tarball: await packageTarball({ 'index.js': 'module.exports = 1;\n' }) } } } } });
  const deps = apiAppDeps(h.config, h.database, h.services, h.logger);
  app = await buildApp({ ...deps, publicRoutes: [recorder, ...(deps.publicRoutes ?? [])] });
  await app.ready();
  token = await h.token('openapi');
  const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json<OpenApiDocument>();
});
afterAll(async () => {
  await app.close();
  await h.close();
});

const openApiPath = (url: string): string => url.replace(/:(\w+)/g, '{$1}');

function operation(method: string, url: string): Operation {
  const op = doc.paths[openApiPath(url)]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${url} is not documented`);
  return op;
}

/** Validates an answer against the documented response of its status and media type. */
function expectDocumented(method: string, url: string, res: LightMyRequestResponse): void {
  const response = operation(method, url).responses[String(res.statusCode)];
  expect(response, `${method} ${url} ${res.statusCode} is not documented`).toBeDefined();
  const mediaType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
  const content = response!.content ?? {};
  const key = Object.keys(content).find((k) => k.split(';')[0]!.trim() === mediaType);
  expect(key, `${method} ${url} ${res.statusCode} ${mediaType} is not documented`).toBeDefined();
  const validate = ajv.compile(content[key!]!.schema);
  const body: unknown = mediaType.endsWith('json') ? res.json() : res.body;
  expect(validate(body), `${method} ${url} ${res.statusCode}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

function expectRequestValid(method: string, url: string, body: unknown): void {
  const schema = operation(method, url).requestBody?.content['application/json']?.schema;
  expect(schema).toBeDefined();
  const validate = ajv.compile(schema!);
  expect(validate(body), ajv.errorsText(validate.errors)).toBe(true);
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 for version 0.1.0, served without authentication', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'pkgscope', version: '0.1.0' });
  });

  it('documents every route, each with its problem responses and an x-service-cost', () => {
    const api = registered.filter((r) => !r.hidden && (r.url.startsWith('/v1/') || r.url === '/healthz' || r.url === '/readyz' || r.url === '/mcp') && r.url !== '/v1/openapi.json');
    expect(api.length).toBeGreaterThanOrEqual(9);
    for (const route of api) {
      const op = operation(route.method, route.url);
      expect(op.operationId, route.url).toBeTruthy();
      expect(typeof op['x-service-cost']?.weight, route.url).toBe('number');
      expect(op['x-service-cost']?.class, route.url).toMatch(/^(light|standard|heavy)$/);
      if (route.url.startsWith('/v1/') || route.url === '/mcp') {
        for (const status of ['400', '401', '403', '405', '429', '500']) {
          expect(op.responses[status]?.content?.['application/problem+json'], `${route.method} ${route.url} ${status}`).toBeDefined();
        }
      } else {
        expect(op.security).toEqual([]);
      }
    }
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual([...new Set(api.map((r) => `${r.method} ${openApiPath(r.url)}`))].sort());
  });

  it('describes real requests and answers: list, read, jobs, the synchronous analysis, probes and problems', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const listBody = { target: 'npm:left-pad@1.3.0', paths: ['lib/**'], limit: 10 };
    expectRequestValid('POST', '/v1/list', listBody);
    const list = await app.inject({ method: 'POST', url: '/v1/list', headers: auth, payload: listBody });
    expect(list.statusCode).toBe(200);
    expectDocumented('POST', '/v1/list', list);
    const invalid = await app.inject({ method: 'POST', url: '/v1/list', headers: auth, payload: { target: 'npm:x', bogus: 1 } });
    expectDocumented('POST', '/v1/list', invalid);

    const read = await app.inject({ method: 'GET', url: '/v1/read?target=npm:left-pad@1.3.0&path=index.js', headers: auth });
    expect(read.statusCode).toBe(409);
    expectDocumented('GET', '/v1/read', read);

    const submitBody = { format: 'cyclonedx', files: SMALL_NPM() };
    expectRequestValid('POST', '/v1/experimental/lockfile-jobs', submitBody);
    const submitted = await app.inject({ method: 'POST', url: '/v1/experimental/lockfile-jobs', headers: auth, payload: submitBody });
    expect(submitted.statusCode).toBe(202);
    expectDocumented('POST', '/v1/experimental/lockfile-jobs', submitted);
    const id = submitted.json<{ id: string }>().id;
    const status = await app.inject({ method: 'GET', url: `/v1/experimental/lockfile-jobs/${id}`, headers: auth });
    expectDocumented('GET', '/v1/experimental/lockfile-jobs/:id', status);
    const pending = await app.inject({ method: 'GET', url: `/v1/experimental/lockfile-jobs/${id}/result`, headers: auth });
    expect(pending.statusCode).toBe(409);
    expectDocumented('GET', '/v1/experimental/lockfile-jobs/:id/result', pending);
    const missing = await app.inject({ method: 'GET', url: `/v1/experimental/lockfile-jobs/${randomUUID()}/events`, headers: auth });
    expect(missing.statusCode).toBe(404);
    expectDocumented('GET', '/v1/experimental/lockfile-jobs/:id/events', missing);

    const sync = await app.inject({ method: 'POST', url: '/v1/experimental/sbom', headers: auth, payload: { format: 'text', files: SMALL_NPM() } });
    expect(sync.statusCode).toBe(200);
    expectDocumented('POST', '/v1/experimental/sbom', sync);
    const cdx = await app.inject({ method: 'POST', url: '/v1/experimental/sbom', headers: auth, payload: submitBody });
    expectDocumented('POST', '/v1/experimental/sbom', cdx);

    const anonymous = await app.inject({ method: 'POST', url: '/v1/list', payload: listBody });
    expect(anonymous.statusCode).toBe(401);
    expectDocumented('POST', '/v1/list', anonymous);
    const wrongMethod = await app.inject({ method: 'DELETE', url: '/v1/list', headers: auth });
    expect(wrongMethod.statusCode).toBe(405);
    expectDocumented('POST', '/v1/list', wrongMethod);

    for (const url of ['/healthz', '/readyz']) expectDocumented('GET', url, await app.inject({ method: 'GET', url }));
  });

  it('keeps answers exactly as before: response schemas document, they do not reshape', async () => {
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(Object.keys(res.json<Record<string, unknown>>()).sort()).toEqual(['checks', 'status']);
    const problem = await app.inject({ method: 'GET', url: '/v1/read?target=npm:x&path=a' });
    expect(problem.json()).toMatchObject({ code: 'AUTHENTICATION_REQUIRED', instance: problem.headers['x-request-id'] });
  });
});
