import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importAdvisoryPaths } from '../../src/advisories/import.js';
import { AdvisoryStore } from '../../src/advisories/store.js';
import { OPENAPI_PATH } from '../../src/http/openapi.js';
import { requestHash } from '../../src/jobs/submission.js';
import { JOBS_PATH } from '../../src/jobs/snapshot.js';
import { runCli } from '../helpers/cli.js';
import { startStreamingHarness, type StreamingHarness } from '../helpers/jobs.js';
import { SseClient } from '../helpers/sse.js';
import { FIXTURE_ADVISORIES } from './match-lookup.js';

/**
 * `"vulnerabilities": true` from the request to the document: the synchronous endpoint and a job
 * (API and worker analysis threads asking their main thread's Postgres lookup), multipart and
 * idempotency, and the CLI's --advisories PATH and --vulnerabilities.
 */

const LOCK = {
  path: 'package-lock.json',
  content: JSON.stringify({
    name: 'app',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'app', version: '1.0.0', dependencies: { lodash: '^4.17.0', 'left-pad': '1.3.0' } },
      'node_modules/lodash': { version: '4.17.20', resolved: 'https://registry.example/lodash/-/lodash-4.17.20.tgz', integrity: 'sha512-PlhdFcillOINfeV7Ni6oF1TAEayyZBoZ8bcshTHqOYJYlrqzRK5hagpagky5o4HfCzzd1TRkXPMFq6cKk9rGmA==' },
      'node_modules/left-pad': { version: '1.3.0', resolved: 'https://registry.example/left-pad/-/left-pad-1.3.0.tgz', integrity: 'sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQEQH1+yFTFSv1W5gV3aq1dVmqFqJvHC1yyu0qu7hcjLJzEA==' },
    },
  }),
};
const PACKAGE_JSON = { path: 'package.json', content: JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { lodash: '^4.17.0', 'left-pad': '1.3.0' } }) };
const FILES = [PACKAGE_JSON, LOCK];

interface Cdx {
  components: { 'bom-ref': string; name: string }[];
  vulnerabilities?: { id: string; affects: { ref: string }[] }[];
}

let s: StreamingHarness;
let work: string;
beforeAll(async () => {
  s = await startStreamingHarness('vulnerabilities');
  await importAdvisoryPaths(new AdvisoryStore(s.h.database.db), [join(FIXTURE_ADVISORIES, 'npm'), join(FIXTURE_ADVISORIES, 'crates.io')]);
  work = await mkdtemp(join(tmpdir(), 'pkgscope-vulnerabilities-'));
}, 120_000);
afterAll(async () => {
  await s.close();
  await rm(work, { recursive: true, force: true });
});

const auth = (): Record<string, string> => ({ authorization: `Bearer ${s.token}` });

/** The vulnerability ids of a CycloneDX document, each with the component names it affects. */
function vulnerabilitiesOf(document: string): string[] {
  const bom = JSON.parse(document) as Cdx;
  const names = new Map(bom.components.map((c) => [c['bom-ref'], c.name]));
  return (bom.vulnerabilities ?? []).map((v) => `${v.id}:${v.affects.map((a) => names.get(a.ref) ?? a.ref).join(',')}`);
}

describe('vulnerabilities on request', () => {
  it('the synchronous endpoint matches only when asked, through its analysis thread', async () => {
    const asked = await s.h.app.inject({ method: 'POST', url: '/v1/experimental/sbom', headers: auth(), payload: { format: 'cyclonedx', files: FILES, vulnerabilities: true } });
    expect(asked.statusCode, asked.body).toBe(200);
    expect(vulnerabilitiesOf(asked.body)).toEqual(['GHSA-35jh-r3h4-6jhm:lodash']);
    expect(asked.body).toContain('service:advisories');
    for (const payload of [{ format: 'cyclonedx', files: FILES }, { format: 'cyclonedx', files: FILES, vulnerabilities: false }]) {
      const plain = await s.h.app.inject({ method: 'POST', url: '/v1/experimental/sbom', headers: auth(), payload });
      expect(plain.statusCode).toBe(200);
      expect((JSON.parse(plain.body) as Cdx).vulnerabilities).toBeUndefined();
      expect(plain.body).not.toContain('service:advisories');
    }
    const bad = await s.h.app.inject({ method: 'POST', url: '/v1/experimental/sbom', headers: auth(), payload: { format: 'cyclonedx', files: FILES, vulnerabilities: 'yes' } });
    expect(bad.statusCode).toBe(400);
  });

  it('a multipart field says it too (true or false, anything else a 400)', async () => {
    const boundary = '----pkgscope-vulns';
    const body = (flag: string): string =>
      [
        `--${boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\ntext\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="vulnerabilities"\r\n\r\n${flag}\r\n`,
        ...FILES.map((f) => `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${f.path}"\r\n\r\n${f.content}\r\n`),
        `--${boundary}--\r\n`,
      ].join('');
    const headers = { ...auth(), 'content-type': `multipart/form-data; boundary=${boundary}` };
    const yes = await s.h.app.inject({ method: 'POST', url: '/v1/experimental/sbom', headers, payload: body('true') });
    expect(yes.statusCode, yes.body).toBe(200);
    expect(yes.body).toContain('GHSA-35jh-r3h4-6jhm');
    const no = await s.h.app.inject({ method: 'POST', url: '/v1/experimental/sbom', headers, payload: body('false') });
    expect(no.statusCode).toBe(200);
    expect(no.body).not.toContain('GHSA-35jh-r3h4-6jhm');
    const bad = await s.h.app.inject({ method: 'POST', url: '/v1/experimental/sbom', headers, payload: body('1') });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ detail: string }>().detail).toMatch(/vulnerabilities/);
  });

  it('a job keeps the request with its inputs; the flag is part of its idempotent identity', { timeout: 120_000 }, async () => {
    expect(requestHash('text', FILES, null, false)).toBe(requestHash('text', FILES));
    expect(requestHash('text', FILES, null, true)).not.toBe(requestHash('text', FILES));
    const submit = (vulnerabilities: boolean | undefined, key: string) =>
      s.h.app.inject({
        method: 'POST',
        url: JOBS_PATH,
        headers: { ...auth(), 'idempotency-key': key },
        payload: { format: 'cyclonedx', files: FILES, ...(vulnerabilities === undefined ? {} : { vulnerabilities }) },
      });
    const asked = await submit(true, 'vulns-1');
    expect(asked.statusCode, asked.body).toBe(202);
    expect((await submit(undefined, 'vulns-1')).statusCode).toBe(409);
    const plain = await submit(undefined, 'vulns-2');
    expect(plain.statusCode).toBe(202);
    const workers = await s.h.startWorkers();
    try {
      const documents: string[] = [];
      for (const res of [asked, plain]) {
        const id = res.json<{ id: string }>().id;
        const events = new SseClient(`${s.base}${JOBS_PATH}/${id}/events`, s.token);
        await events.ended;
        expect(events.snapshots().at(-1)).toMatchObject({ state: 'succeeded' });
        documents.push((await s.h.app.inject({ method: 'GET', url: `${JOBS_PATH}/${id}/result`, headers: auth() })).body);
      }
      expect(documents.map(vulnerabilitiesOf)).toEqual([['GHSA-35jh-r3h4-6jhm:lodash'], []]);
    } finally {
      await workers.close();
    }
  });

  it('the OpenAPI document describes the option', async () => {
    const res = await s.h.app.inject({ method: 'GET', url: OPENAPI_PATH });
    expect(res.statusCode).toBe(200);
    const doc = res.json<{ paths: Record<string, { post?: { requestBody?: { content: Record<string, { schema: { properties?: Record<string, { type?: string; default?: unknown }> } }> } } }> }>();
    for (const path of ['/v1/experimental/sbom', JOBS_PATH]) {
      const props = doc.paths[path]?.post?.requestBody?.content['application/json']?.schema.properties;
      expect(props?.['vulnerabilities'], path).toMatchObject({ type: 'boolean', default: false });
    }
  });

  it('the CLI reads OSV files with --advisories, the mirror with --vulnerabilities, and says when it cannot', { timeout: 240_000 }, async () => {
    const app = join(work, 'app');
    await mkdir(app, { recursive: true });
    for (const f of FILES) await writeFile(join(app, f.path), f.content);
    const env = { XDG_CACHE_HOME: join(work, '.cache'), npm_config_registry: `${s.h.registry.url}/`, DATABASE_URL: s.h.config.databaseUrl };
    const files = await runCli(['sbom', '--offline', '--advisories', join(FIXTURE_ADVISORIES, 'npm'), app], env);
    expect(files.code, files.stderr).toBe(0);
    expect(vulnerabilitiesOf(files.stdout)).toEqual(['GHSA-35jh-r3h4-6jhm:lodash']);
    const mirror = await runCli(['sbom', '--offline', '--vulnerabilities', '--format', 'text', app], env);
    expect(mirror.code, mirror.stderr).toBe(0);
    expect(mirror.stdout).toContain('GHSA-35jh-r3h4-6jhm');
    const plain = await runCli(['sbom', '--offline', '--format', 'text', app], env);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain('GHSA-35jh-r3h4-6jhm');
    const missing = await runCli(['sbom', '--offline', '--advisories', join(work, 'nowhere.zip'), app], env);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/--advisories/);
    const noDatabase = await runCli(['sbom', '--offline', '--vulnerabilities', app], { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(noDatabase.code).toBe(3);
    expect(noDatabase.stderr).toMatch(/advisory mirror/);
  });
});
