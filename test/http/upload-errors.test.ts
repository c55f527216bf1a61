import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, ensureAccount } from '../../src/accounts/tokens.js';
import type { Config } from '../../src/config.js';
import { buildApp, type App } from '../../src/http/app.js';
import { JOBS_PATH } from '../../src/jobs/snapshot.js';
import { apiAppDeps, createApiServices, type ApiServices } from '../../src/processes/routes.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { captureLogs } from '../helpers/logs.js';
import { baseline, probeBound, probeWhile } from '../helpers/probe.js';
import { anyPackage, startFixtureRegistry, type FixtureRegistry } from '../helpers/registry.js';
import { deleteKeysUnder } from '../helpers/services.js';

/**
 * Uploads the service cannot take (issue #29): a NUL in a file and a malformed multipart body are
 * a 400 VALIDATION_ERROR naming the file or part, never a 500, and no uploaded byte reaches a log.
 */

/** Text that must never appear in a log line: every hostile upload carries it. */
const MARKER = `secret-${randomBytes(6).toString('hex')}`;
const SBOM_PATH = '/v1/experimental/sbom';

let database: TestDatabase;
let registry: FixtureRegistry;
let services: ApiServices;
let config: Config;
let app: App;
let base: string;
let token: string;
const logs = captureLogs();

beforeAll(async () => {
  database = await createTestDatabase();
  config = testConfig(database, { LOG_LEVEL: 'info' });
  registry = await startFixtureRegistry({ fallback: anyPackage });
  services = await createApiServices(config, database, logs.logger, await registry.npmOptions());
  app = await buildApp(apiAppDeps(config, database, services, logs.logger));
  base = await app.listen({ port: 0, host: '127.0.0.1' });
  token = (await createToken(database.db, await ensureAccount(database.db, 'uploader'))).token;
});
afterAll(async () => {
  await app.close();
  if (services.commands.status === 'ready') await deleteKeysUnder(services.commands, config.redisPrefix).catch(() => undefined);
  await services.close();
  await registry.close();
  await database.drop();
});

interface Answer {
  status: number;
  json: { code?: string; detail?: string };
}

async function post(path: string, body: string | Buffer, contentType: string): Promise<Answer> {
  const res = await request(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });
  const text = await res.body.text();
  return { status: res.statusCode, json: JSON.parse(text) as Answer['json'] };
}

const postJsonUpload = (path: string, content: string): Promise<Answer> =>
  post(path, JSON.stringify({ format: 'text', files: [{ path: 'pkg/package.json', content }] }), 'application/json');

function multipart(boundary: string, parts: readonly string[], end = `--${boundary}--\r\n`): string {
  return `${parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('')}${end}`;
}
const formatField = 'Content-Disposition: form-data; name="format"\r\n\r\ntext';
const filePart = (name: string, content: string): string =>
  `Content-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${content}`;

/** The log so far holds no byte of any upload. */
function expectNoContentLogged(): void {
  expect(logs.text()).not.toContain(MARKER);
}

describe('an upload containing NUL', () => {
  it('is a 400 VALIDATION_ERROR naming the file, as JSON on both upload routes, and nothing of it is logged', async () => {
    for (const path of [JOBS_PATH, SBOM_PATH]) {
      const r = await postJsonUpload(path, `{"name":"${MARKER}","x":"a\u0000b"}`);
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      expect(r.json.code).toBe('VALIDATION_ERROR');
      expect(r.json.detail).toContain('pkg/package.json');
      expect(r.json.detail).toMatch(/NUL/);
    }
    expectNoContentLogged();
  });

  it('is a 400 naming the file when it comes as a multipart file part', async () => {
    const boundary = 'b0undary';
    const body = multipart(boundary, [formatField, filePart('app/requirements.txt', `${MARKER}\u0000==1.0`)]);
    const r = await post(JOBS_PATH, body, `multipart/form-data; boundary=${boundary}`);
    expect(r.status, JSON.stringify(r.json)).toBe(400);
    expect(r.json).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(r.json.detail).toContain('app/requirements.txt');
    expect(r.json.detail).toMatch(/NUL/);
    expectNoContentLogged();
  });
});

describe('a malformed multipart body', () => {
  const boundary = 'XyZ123';
  const cases: [string, string, string][] = [
    ['ends before its closing boundary', multipart(boundary, [formatField, filePart('package.json', `{"name":"${MARKER}"`)], ''), `multipart/form-data; boundary=${boundary}`],
    ['holds no boundary line at all', `just text ${MARKER}\r\n`, `multipart/form-data; boundary=${boundary}`],
    ['declares no boundary', `--${boundary}\r\n${filePart('package.json', MARKER)}\r\n--${boundary}--\r\n`, 'multipart/form-data'],
  ];
  for (const [name, body, contentType] of cases) {
    it(`${name}: 400 VALIDATION_ERROR naming the multipart body`, async () => {
      for (const path of [JOBS_PATH, SBOM_PATH]) {
        const r = await post(path, body, contentType);
        expect(r.status, `${path} ${JSON.stringify(r.json)}`).toBe(400);
        expect(r.json.code).toBe('VALIDATION_ERROR');
        expect(r.json.detail).toMatch(/multipart/i);
        expect(r.json.detail).not.toContain(MARKER);
      }
      expectNoContentLogged();
    });
  }

  it('leaves /healthz and a small request answering meanwhile', async () => {
    const quiet = await baseline(base, token);
    const hostile = (async () => {
      const answers: number[] = [];
      for (let i = 0; i < 10; i++) {
        for (const [, body, contentType] of cases) answers.push((await post(JOBS_PATH, body, contentType)).status);
        answers.push((await postJsonUpload(JOBS_PATH, `${MARKER}\u0000`)).status);
      }
      return answers;
    })();
    const { result, worstMs, probes } = await probeWhile(base, token, hostile);
    expect(new Set(result)).toEqual(new Set([400]));
    expect(probes).toBeGreaterThan(0);
    expect(worstMs).toBeLessThan(probeBound(quiet));
    expectNoContentLogged();
  });
});

describe('the logger', () => {
  it('censors the values a failed query quotes (drizzle params, PostgreSQL parameter excerpts), through causes', async () => {
    // A real failure: PostgreSQL refuses a NUL in text and quotes the parameter back.
    const failure = await database.db.execute(sql`select ${`${MARKER}\u0000`}::text`).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(JSON.stringify({ message: (failure as Error).message, cause: String((failure as Error).cause) })).toContain(MARKER);
    logs.logger.error({ err: failure }, 'query failed');
    logs.logger.error({ err: { type: 'Error', message: `Failed query: select 1\nparams: ${MARKER}`, stack: `Error: Failed query\nparams: ${MARKER}` } }, 'plain');
    await logs.waitFor((lines) => lines.some((l) => l['msg'] === 'plain'));
    const line = logs.lines().find((l) => l['msg'] === 'query failed');
    expect(JSON.stringify(line)).toContain('Failed query: select');
    expectNoContentLogged();
  });
});
