/**
 * bench:inventory — one API process, and one fresh worker process per target kind so each peak
 * RSS is its own: prepare a package of 20,000 files (the reference), a local git repository of
 * the same 20,000 files (file:// host), the same files as a Go module zip from a local module
 * proxy (the zip reader's figures beside the tarball's), and crawl a local documentation site of 1,000 pages; print
 * request→ready time and the worker's peak RSS for each, then POST /v1/list and GET /v1/read
 * req/s for each kind with autocannon (100 connections, 10 s), each beside a Fastify hello-world
 * measured in alternation with it (BENCH_ROUNDS rounds, 2 by default), every run started with the
 * API idle; then POST /v1/grep over the package (selective and broad, literal and regex): req/s,
 * p50 and p99. The load average is printed beside each figure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ListResponseType } from '../src/routes/inventory/schemas.js';
import { freePort, LogWatcher } from '../test/helpers/cli.js';
import { DocsSite, htmlPage, type SiteResource } from '../test/helpers/docs-site.js';
import { GitHost } from '../test/helpers/git-host.js';
import { startFixtureRegistry } from '../test/helpers/registry.js';
import { packageTarball } from '../test/helpers/tarball.js';
import { makeZip } from '../test/helpers/zip.js';
import {
  BENCH_REDIS_URL,
  alternate,
  benchRounds,
  benchService,
  clearRedisPrefix,
  load,
  loadAverage,
  ms,
  peakRssMb,
  sourceFiles,
  startHelloWorld,
  stopProcesses,
  supervise,
  waitForHttp,
  waitUntilIdle,
} from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
const FILES = 20_000;
const SECTIONS = 19;
const PAGES_PER_SECTION = 980 / SECTIONS;

/** 1,000 pages: a landing page, 19 section pages and 980 leaf pages of about 3 KB each. */
function siteResources(): Record<string, SiteResource> {
  const resources: Record<string, SiteResource> = { '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' } };
  const paragraph = 'Documentation text with enough words to look like a real page of a guide. '.repeat(30);
  const sections = Array.from({ length: SECTIONS }, (_, s) => `section${s}/`);
  resources['/docs/'] = htmlPage('Docs', paragraph, sections);
  let leaf = 0;
  for (let s = 0; s < SECTIONS; s++) {
    const count = Math.floor(PAGES_PER_SECTION) + (s < 980 % SECTIONS ? 1 : 0);
    const leaves = Array.from({ length: count }, () => `page${leaf++}`);
    resources[`/docs/section${s}/`] = htmlPage(`Section ${s}`, paragraph, leaves);
    for (const name of leaves) resources[`/docs/section${s}/${name}`] = htmlPage(`Page ${name}`, paragraph, ['../', `../../section${(s + 1) % SECTIONS}/`]);
  }
  return resources;
}

/** A bare HTTP fixture on 127.0.0.1. */
async function serve(handle: (path: string, res: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => handle(new URL(req.url ?? '/', 'http://x').pathname, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function main(): Promise<void> {
  const files = sourceFiles(FILES);
  const bytes = Object.values(files).reduce((n, c) => n + Buffer.byteLength(c), 0);
  console.log(`source: ${FILES} files, ${(bytes / 1e6).toFixed(1)} MB, as a package tarball and as a git repository`);
  const registry = await startFixtureRegistry({ packages: { 'bench-big': { versions: { '1.0.0': { _tarball: await packageTarball(files) } } } } });
  // The same tree as a Go module: a module proxy answering the list, .info and the zip.
  const moduleZip = await makeZip(Object.fromEntries(Object.entries(files).map(([p, c]) => [`example.test/bench@v1.0.0/${p}`, c])));
  const goProxy = await serve((path, res) => {
    if (path === '/example.test/bench/@v/list') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('v1.0.0\n');
    if (path === '/example.test/bench/@v/v1.0.0.info') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"Version":"v1.0.0"}');
    if (path === '/example.test/bench/@v/v1.0.0.zip') return void res.writeHead(200, { 'content-type': 'application/zip' }).end(moduleZip);
    res.writeHead(404).end();
  });
  console.log(`go module zip: ${(moduleZip.length / 1e6).toFixed(1)} MB`);
  const host = await GitHost.start();
  await host.create('bench', 'big');
  const commit = await host.commit('bench', 'big', 'main', files);
  const site = await DocsSite.start(siteResources());
  console.log(`site: ${[...site.resources.keys()].filter((p) => p.startsWith('/docs')).length} pages at ${site.origin}/docs`);
  const cacheDir = await mkdtemp(join(tmpdir(), 'pkgscope-bench-git-'));

  const { token, port, prefix, env } = await benchService(
    'inventory',
    {
      GIT_HOSTS: JSON.stringify({ github: host.baseUrl }),
      PACKAGE_REGISTRIES: JSON.stringify({ go: goProxy.url }),
      GIT_CACHE_DIR: cacheDir,
      SITE_ALLOW_PRIVATE_ADDRESSES: 'true',
      LOG_LEVEL: 'info',
    },
    registry,
  );

  const children: ChildProcess[] = [];
  const start = (args: string[], extra: Record<string, string> = {}, stdout: 'pipe' | number = 'pipe'): ChildProcess => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...env, ...extra }, stdio: ['ignore', stdout, 'inherit'] });
    children.push(supervise(child, args[0] ?? 'child'));
    return child;
  };
  // The API logs as it does by default (a line per request), into a file as a log shipper's pipe would take them.
  const apiLog = join(tmpdir(), `pkgscope-bench-inventory-api-${process.pid}.log`);
  const apiOut = openSync(apiLog, 'w');
  const api = start(['api'], { PORT: String(port), LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'info' }, apiOut);
  closeSync(apiOut);
  await waitForHttp(`http://127.0.0.1:${port}/healthz`);
  const base = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate' };

  const prepare = async (label: string, target: string, done: string, kind = label): Promise<void> => {
    const worker = start(['worker']);
    const logs = new LogWatcher(worker);
    await logs.waitFor((l) => l['msg'] === 'worker started');
    const started = performance.now();
    const res = await fetch(`${base}/v1/list`, { method: 'POST', headers, body: JSON.stringify({ target, wait_timeout_ms: 200_000, limit: 1 }) });
    const first = (await res.json()) as ListResponseType;
    const firstAt = performance.now() - started;
    const ready = await logs.waitFor((l) => l['msg'] === done);
    const total = performance.now() - started;
    const what = label === 'site' ? `${String(ready['pages'])} pages, first page listed after ${ms(firstAt)}` : `${String(ready['files'])} files`;
    // Grep's trigram index is written after the snapshot is ready: its own line.
    const indexed = label === 'site' ? null : await logs.waitFor((l) => l['msg'] === `${kind} texts indexed`);
    console.log(
      `${label.padEnd(10)} preparation ${ms(total)} request→ready (worker's own ${String(ready['ms'])} ms; ${what}); ` +
        `worker peak RSS ${peakRssMb(worker.pid ?? 0).toFixed(0)} MB; first answer ${String(first.code_index_state ?? first.inventory_state)}` +
        (indexed === null ? '' : `; ${String(indexed['texts'])} texts indexed for grep by ${String(indexed['ms'])} ms`) +
        ` (${loadAverage()})`,
    );
    await stopProcesses([worker]);
  };
  await prepare('package', 'npm:bench-big@1.0.0', 'package inventory ready');
  await prepare('go module', 'go:example.test/bench@v1.0.0', 'package inventory ready', 'package');
  await prepare('repository', `github:bench/big@${commit}`, 'repository inventory ready');
  await prepare('site', `site:${site.host}/docs`, 'crawl finished');

  // Every worker has stopped: the API alone serves the measured requests.
  const service = [{ name: 'api', pid: api.pid ?? 0 }];
  console.log(`API idle after the preparations (${await waitUntilIdle(service)})`);
  const ceiling = await startHelloWorld(children, await freePort());
  const rounds = benchRounds(2);
  const ratios: string[] = [];

  const listTargets: [string, string][] = [
    ['package (pinned)', 'npm:bench-big@1.0.0'],
    ['go module (pinned)', 'go:example.test/bench@v1.0.0'],
    ['repository (commit)', `github:bench/big@${commit}`],
    ['repository (branch)', 'github:bench/big@main'],
    ['site', `site:${site.host}/docs`],
  ];
  for (const [label, target] of listTargets) {
    const body = JSON.stringify({ target, recursive: true, limit: 100 });
    const { medianRatio } = await alternate({ title: `POST /v1/list ${label}`, ceiling, idle: service, rounds, measured: { url: `${base}/v1/list`, method: 'POST', headers, body } });
    ratios.push(`list ${label} ${(medianRatio * 100).toFixed(1)} %`);
  }
  const reads: [string, string, string][] = [
    ['repository', `github:bench/big@${commit}`, 'src/area7/part0/file7.js'],
    ['site', `site:${site.host}/docs`, 'section3/page200'],
  ];
  for (const [label, target, path] of reads) {
    const url = `${base}/v1/read?${new URLSearchParams({ target, path }).toString()}`;
    const { medianRatio } = await alternate({ title: `GET /v1/read ${label}`, ceiling, idle: service, rounds, measured: { url, headers: { authorization: headers.authorization, 'accept-encoding': headers['accept-encoding'] } } });
    ratios.push(`read ${label} ${(medianRatio * 100).toFixed(1)} %`);
  }
  console.log(`median ratios to the hello-world: ${ratios.join('; ')}`);

  // Grep over the 20,000-file package: selective and broad, literal and regex (10 connections, 5 s).
  const greps: [string, Record<string, unknown>][] = [
    ['literal, 1 match', { pattern: 'name12345_7 = ' }],
    ['literal, many matches', { pattern: 'await' }],
    ['regex, 10 matches', { pattern: 'name1999[0-9]_100 = \\d+;', regex: true }],
    ['regex, many matches', { pattern: '^async name\\d+_\\d+', regex: true }],
  ];
  for (const [label, search] of greps) {
    const body = JSON.stringify({ target: 'npm:bench-big@1.0.0', limit: 100, ...search });
    const check = (await (await fetch(`${base}/v1/grep`, { method: 'POST', headers, body })).json()) as { matches?: unknown[]; index_narrowed?: boolean; files_scanned?: number };
    await load(`POST /v1/grep ${label}`, { url: `${base}/v1/grep`, method: 'POST', headers, body, connections: 10, duration: 5 });
    console.log(`  ${check.matches?.length ?? 0} matches on page one, ${check.files_scanned ?? 0} files read, index ${check.index_narrowed === true ? 'narrowed' : 'not used'}`);
  }

  await stopProcesses(children);
  await Promise.all([registry.close(), goProxy.close(), site.close(), host.close(), rm(cacheDir, { recursive: true, force: true }), rm(apiLog, { force: true })]);
  await clearRedisPrefix(BENCH_REDIS_URL, prefix);
}

await main();
