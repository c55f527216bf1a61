/**
 * bench:packages — package inspection against the built service (an API and a worker process) and
 * a fixture npm registry: a package of 300 versions (two with 500-file tarballs), OSV advisories
 * imported. Measures GET /v1/packages/{target} warm under load (autocannon, 10 connections) and the
 * upgrade review between the two prepared versions, warm, one request at a time.
 * Targets: GET warm p99 < 50 ms; upgrade review warm < 500 ms.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { UpgradeReviewResponseType } from '../src/packages/schemas.js';
import { LogWatcher } from '../test/helpers/cli.js';
import { startFixtureRegistry, type FixtureVersion } from '../test/helpers/registry.js';
import { packageTarball } from '../test/helpers/tarball.js';
import { benchService, clearRedisPrefix, ms, percentile, sourceFiles, stopProcesses, supervise, waitForHttp } from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
const ADVISORIES = fileURLToPath(new URL('../test/fixtures/packages/advisories/npm', import.meta.url));

async function main(): Promise<void> {
  const files = sourceFiles(500);
  // The newer version adds a file, drops one and changes one.
  const newer: Record<string, string> = { ...files, 'install.js': 'console.log("setup");\n', 'src/area1/part0/file1.js': 'module.exports = 2;\n' };
  delete newer['src/area0/part0/file0.ts'];
  const versions: Record<string, FixtureVersion> = {};
  // Older releases without archives: the inspection lists them, the review never reads them.
  for (let i = 0; i < 298; i++) versions[`0.${Math.floor(i / 10)}.${i % 10}`] = { license: 'MIT', dependencies: { 'left-pad': '^1.3.0' } };
  const manifest = (extra: Record<string, unknown>) => ({ license: 'MIT', description: 'bench package', dependencies: { 'left-pad': '^1.3.0', 'right-pad': '^1.0.0' }, exports: { '.': './index.js', './legacy': './legacy.js' }, ...extra });
  versions['1.0.0'] = { ...manifest({}), _tarball: await packageTarball(files) };
  versions['2.0.0'] = { ...manifest({ scripts: { postinstall: 'node install.js' }, exports: { '.': './index.js' } }), _tarball: await packageTarball(newer) };
  // `demo-template` has an imported advisory (fixed in 2.0.0): the review matches both sides.
  const registry = await startFixtureRegistry({ packages: { 'demo-template': { versions } } });
  const service = await benchService('packages', { ADVISORY_DB_URL: 'off', LOG_LEVEL: 'warn' }, registry);
  const imported = spawnSync(process.execPath, [CLI, 'advisories', 'import', ADVISORIES], { env: service.env, encoding: 'utf8' });
  if (imported.status !== 0) throw new Error(`advisories import failed: ${imported.stderr}`);

  const children: ChildProcess[] = [];
  const start = (args: string[], extra: Record<string, string> = {}): ChildProcess => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...service.env, ...extra }, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(supervise(child, args[0] ?? 'child'));
    return child;
  };
  const api = start(['api']);
  const worker = start(['worker'], { LOG_LEVEL: 'info' });
  const workerLogs = new LogWatcher(worker);
  await workerLogs.waitFor((l) => l['msg'] === 'worker started');
  await waitForHttp(`${service.base}/healthz`);
  api.stdout?.resume();
  const headers = { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' };

  const inspectUrl = `${service.base}/v1/packages/${encodeURIComponent('npm:demo-template@1.0.0')}`;
  const cold = performance.now();
  const first = await fetch(inspectUrl, { headers });
  if (first.status !== 200) throw new Error(`inspection answered ${first.status}: ${await first.text()}`);
  console.log(`GET /v1/packages cold (registry asked): ${ms(performance.now() - cold)}`);
  await autocannon({ url: inspectUrl, headers, connections: 10, duration: 2 });
  const warm = await autocannon({ url: inspectUrl, headers, connections: 10, duration: 10 });
  console.log(
    `GET /v1/packages/{target} warm: ${warm.requests.average.toFixed(0)} req/s  p50 ${warm.latency.p50} ms  p99 ${warm.latency.p99} ms  (target p99 < 50 ms)` +
      (warm.non2xx + warm.errors > 0 ? `  (${warm.non2xx + warm.errors} non-2xx/errors)` : ''),
  );

  const body = JSON.stringify({ target: 'npm:demo-template@1.0.0', to: '2.0.0', wait_timeout_ms: 120_000 });
  const prepared = performance.now();
  const firstReview = (await (await fetch(`${service.base}/v1/packages/upgrade-review`, { method: 'POST', headers, body })).json()) as UpgradeReviewResponseType;
  if (firstReview.files === null) throw new Error(`the versions were not prepared: ${String(firstReview.files_note)}`);
  console.log(`upgrade review, first (both versions prepared meanwhile): ${ms(performance.now() - prepared)}; ${firstReview.files.added.count} added, ${firstReview.files.removed.count} removed, ${firstReview.files.changed.count} changed, ${firstReview.vulnerabilities.fixed.length} advisory fixed`);
  const times: number[] = [];
  for (let i = 0; i < 60; i++) {
    const t = performance.now();
    const res = await fetch(`${service.base}/v1/packages/upgrade-review`, { method: 'POST', headers, body });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`review answered ${res.status}`);
    if (i >= 10) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`upgrade review warm (${times.length} sequential): p50 ${ms(percentile(times, 50))}  p99 ${ms(percentile(times, 99))}  max ${ms(times.at(-1) ?? 0)}  (target < 500 ms)`);

  await stopProcesses(children);
  await registry.close();
  await clearRedisPrefix(service.env['REDIS_URL'] ?? '', service.prefix);
}

await main();
