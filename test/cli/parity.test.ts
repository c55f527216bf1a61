import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS_PATH } from '../../src/jobs/snapshot.js';
import type { InputFile } from '../../src/sbom/types.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { startStreamingHarness, type StreamingHarness } from '../helpers/jobs.js';
import { SseClient } from '../helpers/sse.js';

// Go metadata from a port nobody listens on: both paths fail to fetch it the same way, at once.
const REGISTRIES = JSON.stringify({ go: 'http://127.0.0.1:9', pypi: 'http://127.0.0.1:9', crates: 'http://127.0.0.1:9' });

let s: StreamingHarness;
let work: string;
beforeAll(async () => {
  s = await startStreamingHarness('parity', { PACKAGE_REGISTRIES: REGISTRIES });
  work = await mkdtemp(join(tmpdir(), 'pkgscope-parity-'));
});
afterAll(async () => {
  await s.close();
  await rm(work, { recursive: true, force: true });
});

/** The text document without the one line that differs by nature: when it was generated. */
const comparable = (text: string): string => text.replace(/^generated: .*$/m, 'generated: -');

describe('the CLI and a job', () => {
  it('give the same document for the same polyglot upload', async () => {
    const files: InputFile[] = [
      ...(await Promise.all(['package.json', 'package-lock.json'].map(async (n) => ({ path: `web/${n}`, content: await readFile(join(FIXTURES, 'lockfiles/small/npm3', n), 'utf8') })))),
      { path: 'svc/go.mod', content: 'module example.test/svc\n\ngo 1.22\n\nrequire (\n\tgithub.com/google/uuid v1.6.0\n\tgolang.org/x/sys v0.20.0 // indirect\n)\n' },
      { path: 'py/requirements.txt', content: 'six==1.16.0\n' },
    ];
    for (const f of files) {
      await mkdir(dirname(join(work, f.path)), { recursive: true });
      await writeFile(join(work, f.path), f.content);
    }
    const cli = await runCli(['sbom', '--format', 'text', work], {
      npm_config_registry: `${s.h.registry.url}/`,
      XDG_CACHE_HOME: join(work, '.cache'),
      PACKAGE_REGISTRIES: REGISTRIES,
    });
    expect(cli.code, cli.stderr).toBe(0);

    const submitted = await s.h.app.inject({
      method: 'POST',
      url: JOBS_PATH,
      headers: { authorization: `Bearer ${s.token}` },
      payload: { format: 'text', files },
    });
    expect(submitted.statusCode).toBe(202);
    const { id } = submitted.json<{ id: string }>();
    const events = new SseClient(`${s.base}${JOBS_PATH}/${id}/events`, s.token);
    const workers = await s.h.startWorkers();
    try {
      await events.ended;
      expect(events.snapshots().at(-1)).toMatchObject({ state: 'succeeded' });
      const result = await s.h.app.inject({ method: 'GET', url: `${JOBS_PATH}/${id}/result`, headers: { authorization: `Bearer ${s.token}` } });
      expect(comparable(result.body)).toBe(comparable(cli.stdout));
      // Every ecosystem of the upload is in it.
      expect(result.body).toMatch(/^Go +github\.com\/google\/uuid +v1\.6\.0 /m);
      expect(result.body).toMatch(/^Python +six +1\.16\.0 /m);
      expect(result.body).toMatch(/^npm +express /m);
    } finally {
      await workers.close();
    }
  });
});
