import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS_PATH } from '../../src/jobs/snapshot.js';
import { checkEnvironment } from '../../src/model/environment.js';
import { completeEnvironment, DEFAULT_ENVIRONMENT } from '../../src/ecosystems/pypi/markers.js';
import { runCli } from '../helpers/cli.js';
import { startStreamingHarness, type StreamingHarness } from '../helpers/jobs.js';
import { startPypiRegistry, type PypiRegistry } from '../helpers/pypi-registry.js';
import { SseClient } from '../helpers/sse.js';

/**
 * The target environment a request states: Python manifests without a lockfile resolve for it
 * (PEP 508 markers), through the synchronous route, a job (stored with its inputs, so a retry on
 * another worker resolves the same), and the CLI.
 */

const PYPROJECT = {
  path: 'pyproject.toml',
  content: '[project]\nname = "tool"\nversion = "1.0"\ndependencies = ["click>=8", "pywin32>=306; sys_platform == \'win32\'", "uvloop; python_version < \'3.12\'"]\n',
};

let pypi: PypiRegistry;
let s: StreamingHarness;
let work: string;
beforeAll(async () => {
  pypi = await startPypiRegistry({
    projects: {
      click: { '8.1.7': { requiresDist: ['colorama; platform_system == "Windows"'] } },
      colorama: { '0.4.6': {} },
      pywin32: { '306': {} },
      uvloop: { '0.21.0': {} },
    },
  });
  s = await startStreamingHarness('environment', { PACKAGE_REGISTRIES: JSON.stringify({ pypi: pypi.url }) });
  work = await mkdtemp(join(tmpdir(), 'pkgscope-environment-'));
});
afterAll(async () => {
  await s.close();
  await pypi.close();
  await rm(work, { recursive: true, force: true });
});

const auth = (): Record<string, string> => ({ authorization: `Bearer ${s.token}` });

/** The `name version` lines of a text document's components. */
function componentsOf(text: string): string[] {
  return [...text.matchAll(/^Python +(click|colorama|pywin32|uvloop) +(\S+)/gm)].map((m) => `${m[1]}@${m[2]}`).sort();
}

async function sync(environment?: unknown) {
  return s.h.app.inject({
    method: 'POST',
    url: '/v1/experimental/sbom',
    headers: auth(),
    payload: { format: 'cyclonedx', files: [PYPROJECT], ...(environment === undefined ? {} : { environment }) },
  });
}

function names(document: string): string[] {
  return (JSON.parse(document) as { components: { name: string }[] }).components.map((c) => c.name).sort();
}

describe('the target environment', () => {
  it('completes a partial environment as CPython reports it, what the request states winning', () => {
    expect(completeEnvironment()).toEqual(DEFAULT_ENVIRONMENT);
    expect(completeEnvironment({ sys_platform: 'win32', python_version: '3.10' })).toMatchObject({
      sys_platform: 'win32',
      platform_system: 'Windows',
      os_name: 'nt',
      platform_machine: 'AMD64',
      python_version: '3.10',
      python_full_version: '3.10.0',
      implementation_version: '3.10.0',
    });
    expect(completeEnvironment({ python_full_version: '3.9.18', sys_platform: 'darwin', platform_machine: 'x86_64' })).toMatchObject({
      python_version: '3.9',
      platform_system: 'Darwin',
      platform_machine: 'x86_64',
    });
    expect(checkEnvironment({ python: { python_version: '3.11' } })).toEqual({ ok: true, environment: { python: { python_version: '3.11' } } });
    const detail = (value: unknown): string => {
      const checked = checkEnvironment(value);
      return checked.ok ? '' : checked.detail;
    };
    expect(detail({ go: {} })).toMatch(/environment\.go is not a known environment/);
    expect(detail({ python: { extra: 'socks' } })).toMatch(/environment\.python\.extra is not a PEP 508 marker variable/);
    expect(checkEnvironment({ python: { sys_platform: 'win 32; rm' } })).toMatchObject({ ok: false });
  });

  it('decides what a manifest resolves to on the synchronous route, and says which environment it was', async () => {
    const linux = await sync();
    expect(linux.statusCode, linux.body).toBe(200);
    expect(names(linux.body)).toEqual(['click']);
    const windows = await sync({ python: { sys_platform: 'win32', python_version: '3.11' } });
    expect(windows.statusCode, windows.body).toBe(200);
    // pywin32 by sys_platform, colorama by the implied platform_system, uvloop by the version.
    expect(names(windows.body)).toEqual(['click', 'colorama', 'pywin32', 'uvloop']);
    expect(windows.body).toContain('resolved for CPython 3.11.0 on win32 AMD64');
  });

  it('rejects an environment it cannot use with a 400 naming the key at fault', async () => {
    for (const [environment, pattern] of [
      [{ python: { pyhton_version: '3.11' } }, /environment\.python\.pyhton_version|pyhton_version/],
      [{ ruby: { version: '3.3' } }, /ruby/],
      [{ python: { python_version: 311 } }, /python_version/],
      ['linux', /environment/],
    ] as const) {
      const res = await sync(environment);
      expect(res.statusCode, JSON.stringify(environment)).toBe(400);
      const problem = res.json<{ code: string; detail: string }>();
      expect(problem.code).toBe('VALIDATION_ERROR');
      expect(problem.detail).toMatch(pattern);
    }
  });

  it('is kept with a job, part of its idempotent identity, and taken from a multipart field', async () => {
    const submit = (environment: unknown, key: string) =>
      s.h.app.inject({ method: 'POST', url: JOBS_PATH, headers: { ...auth(), 'idempotency-key': key }, payload: { format: 'text', files: [PYPROJECT], environment } });
    const first = await submit({ python: { sys_platform: 'win32' } }, 'env-1');
    expect(first.statusCode).toBe(202);
    // The same key with another environment is another request.
    const other = await submit({ python: { sys_platform: 'linux' } }, 'env-1');
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const replay = await submit({ python: { sys_platform: 'win32' } }, 'env-1');
    expect(replay.json<{ id: string }>().id).toBe(first.json<{ id: string }>().id);

    const boundary = '----pkgscope-env';
    const multipart = await s.h.app.inject({
      method: 'POST',
      url: JOBS_PATH,
      headers: { ...auth(), 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: [
        `--${boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\ntext\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="environment"\r\n\r\n{"python":{"python_version":"3.11"}}\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${PYPROJECT.path}"\r\n\r\n${PYPROJECT.content}\r\n`,
        `--${boundary}--\r\n`,
      ].join(''),
    });
    expect(multipart.statusCode, multipart.body).toBe(202);

    const workers = await s.h.startWorkers();
    try {
      const results: string[][] = [];
      for (const id of [first.json<{ id: string }>().id, multipart.json<{ id: string }>().id]) {
        const events = new SseClient(`${s.base}${JOBS_PATH}/${id}/events`, s.token);
        await events.ended;
        expect(events.snapshots().at(-1)).toMatchObject({ state: 'succeeded' });
        const result = await s.h.app.inject({ method: 'GET', url: `${JOBS_PATH}/${id}/result`, headers: auth() });
        results.push(componentsOf(result.body));
      }
      expect(results).toEqual([
        ['click@8.1.7', 'colorama@0.4.6', 'pywin32@306'],
        ['click@8.1.7', 'uvloop@0.21.0'],
      ]);
    } finally {
      await workers.close();
    }
  });

  it('is given to the CLI as --python-env KEY=VALUE, with the same rules', async () => {
    await mkdir(join(work, 'app'), { recursive: true });
    await writeFile(join(work, 'app', PYPROJECT.path), PYPROJECT.content);
    const env = { XDG_CACHE_HOME: join(work, '.cache'), PACKAGE_REGISTRIES: JSON.stringify({ pypi: pypi.url }), npm_config_registry: `${s.h.registry.url}/` };
    const cli = await runCli(['sbom', '--format', 'text', '--python-env', 'sys_platform=win32', join(work, 'app')], env);
    expect(cli.code, cli.stderr).toBe(0);
    expect(componentsOf(cli.stdout)).toEqual(['click@8.1.7', 'colorama@0.4.6', 'pywin32@306']);
    const bad = await runCli(['sbom', '--python-env', 'platform=win32', join(work, 'app')], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/platform is not a PEP 508 marker variable/);
  });
});
