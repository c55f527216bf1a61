import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAllRegistries, npmManifest, type AllRegistries } from '../helpers/all-registries.js';
import { freePort } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startPypiRegistry, type PypiRegistry } from '../helpers/pypi-registry.js';
import { startFixtureRegistry, type FixtureRegistry } from '../helpers/registry.js';
import { BUILT_CLI } from '../helpers/build.js';
import { startShippedService, type ShippedService } from '../helpers/shipped-service.js';
import { deleteKeysOnSharedRedis, REDIS_URL } from '../helpers/services.js';
import { packageTarball } from '../helpers/tarball.js';

/**
 * Every shell example of the README, run as a newcomer runs it: the ```sh blocks in order, in one
 * bash session (variables and functions carry over), in a project folder holding the files the
 * examples name, against the service as `npm start` runs it. Two things differ from the page, and
 * only these: the service's address (a free port, not localhost:8080) and its database (a test
 * database, where the token example says "whatever the service uses"); `pkgscope` and
 * `node dist/src/cli.js` are the checkout's built CLI by its full path (the examples run in a
 * project folder, not in the checkout). Blocks that start the
 * service itself, run the test suite, need Docker, or are the developer commands are not run.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'dev-token';

/** Blocks not run here, by what they hold: the service start (this test does it), the suite, Docker, the build commands. */
const NOT_RUN = [/npm start/, /npm ci && npm test/, /docker compose/, /^npm run build/m];

function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

/** A small tree with the paths the examples name (cjs/, umd/, index.js, package.json, more than five .js files). */
function reactTree(version: string): Record<string, string> {
  return {
    'package.json': `${JSON.stringify({ name: 'react', version, main: 'index.js', license: 'MIT' }, null, 2)}\n`,
    'index.js': "'use strict';\nmodule.exports = require('./cjs/react.development.js');\n",
    'LICENSE': 'MIT License\n',
    'README.md': '# react\n',
    'cjs/react.development.js': `/** @license React v${version} */\nfunction useState(initial) {\n  return [initial, () => {}];\n}\nexports.useState = useState;\n`,
    'cjs/react.production.min.js': 'exports.useState=function(a){return[a,function(){}]};\n',
    'cjs/react-jsx-runtime.development.js': 'exports.jsx = function jsx() {};\n',
    'cjs/react-jsx-runtime.production.min.js': 'exports.jsx=function(){};\n',
    'umd/react.development.js': '(function () { this.React = {}; })();\n',
    'umd/react.production.min.js': '(function(){this.React={}})();\n',
    'jsx-runtime.js': "module.exports = require('./cjs/react-jsx-runtime.development.js');\n",
  };
}

const PYPROJECT = `[project]
name = "demo"
version = "0.1.0"
dependencies = ["requests>=2.31", "colorama; sys_platform == 'win32'"]
`;

/** Runs the blocks in one bash, each followed by a marker with its exit status; the output of each block by index. */
async function runBlocks(blocks: readonly string[], cwd: string, env: Record<string, string>): Promise<{ outputs: string[]; statuses: number[]; stderr: string }> {
  const script = blocks.map((b, i) => `${b}\necho "@@block ${i} $?"\n`).join('');
  const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`bash exited ${code}:\n${stderr}`);
  const outputs: string[] = [];
  const statuses: number[] = [];
  let rest = stdout;
  for (let i = 0; i < blocks.length; i++) {
    const marker = new RegExp(`@@block ${i} (\\d+)\\n`).exec(rest);
    if (marker === null) throw new Error(`no marker after block ${i}:\n${stdout}\n${stderr}`);
    outputs.push(rest.slice(0, marker.index));
    statuses.push(Number(marker[1]));
    rest = rest.slice(marker.index + marker[0].length);
  }
  return { outputs, statuses, stderr };
}

let fixtures: AllRegistries | null = null;
let npm: FixtureRegistry | null = null;
let pypi: PypiRegistry | null = null;
let database: TestDatabase | null = null;
let service: ShippedService | null = null;
let project = '';
const prefix = `pkgscope-readme-${randomBytes(4).toString('hex')}`;
const ran: { blocks: string[]; outputs: string[]; statuses: number[]; stderr: string } = { blocks: [], outputs: [], statuses: [], stderr: '' };

beforeAll(async () => {
  await Promise.all([
    startAllRegistries().then((started) => (fixtures = started)),
    createTestDatabase().then((created) => (database = created)),
    mkdtemp(join(tmpdir(), 'pkgscope-readme-')).then((dir) => (project = dir)),
    (async () => {
      const versions = Object.fromEntries(
        await Promise.all(['18.2.0', '18.3.1'].map(async (v) => [v, { ...npmManifest('react', v), license: 'MIT', _tarball: await packageTarball(reactTree(v)) }] as const)),
      );
      npm = await startFixtureRegistry({ packages: { react: { versions, distTags: { latest: '18.3.1' } } }, fallback: npmManifest });
    })(),
    // The projects the pyproject example names, for its resolution from PyPI.
    startPypiRegistry({
      projects: {
        requests: { '2.31.0': { requiresDist: ['idna<4,>=2.5'] }, '2.32.3': { requiresDist: ['idna<4,>=2.5', "PySocks!=1.5.7,>=1.5.6; extra == 'socks'"] } },
        idna: { '3.7': {} },
        colorama: { '0.4.6': {} },
      },
    }).then((started) => (pypi = started)),
  ]);
  if (fixtures === null || database === null || npm === null || pypi === null) throw new Error('unreachable');
  const small = join(ROOT, 'test/fixtures/lockfiles/small');
  await Promise.all([
    copyFile(join(small, 'npm3/package.json'), join(project, 'package.json')),
    copyFile(join(small, 'npm3/package-lock.json'), join(project, 'package-lock.json')),
    copyFile(join(small, 'yarn1/yarn.lock'), join(project, 'yarn.lock')),
    writeFile(join(project, 'pyproject.toml'), PYPROJECT),
  ]);
  const packageRegistries = { ...(JSON.parse(fixtures.env['PACKAGE_REGISTRIES'] ?? '{}') as Record<string, string>), pypi: pypi.url };
  const registries = { ...fixtures.env, PACKAGE_REGISTRIES: JSON.stringify(packageRegistries), npm_config_registry: `${npm.url}/` };
  const port = await freePort();
  service = await startShippedService({ ...registries, DATABASE_URL: database.url, REDIS_URL, REDIS_PREFIX: prefix }, TOKEN, port);

  const blocks = shellBlocks(await readFile(join(ROOT, 'README.md'), 'utf8')).filter((b) => !NOT_RUN.some((skip) => skip.test(b)));
  ran.blocks = blocks.map((b) =>
    b
      .replaceAll('localhost:8080', `127.0.0.1:${port}`)
      .replaceAll('postgres://postgres@127.0.0.1:5432/pkgscope', database?.url ?? '')
      .replace(/^pkgscope /gm, `node ${BUILT_CLI} `)
      .replaceAll('node dist/src/cli.js', `node ${BUILT_CLI}`),
  );
  const env = Object.fromEntries(['PATH', 'HOME', 'LANG', 'USER'].flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k] ?? '']])));
  Object.assign(ran, await runBlocks(ran.blocks, project, { ...env, ...registries }));
}, 300_000);

afterAll(async () => {
  await service?.kill();
  await Promise.all([fixtures?.close(), npm?.close(), pypi?.close(), database?.drop(), deleteKeysOnSharedRedis(prefix), project === '' ? undefined : rm(project, { recursive: true, force: true })]);
});

/** The output of the block holding `marker` (exactly one block holds it). */
function output(marker: string): string {
  const found = ran.blocks.flatMap((b, i) => (b.includes(marker) ? [i] : []));
  expect(found, `blocks holding ${marker}`).toHaveLength(1);
  const i = found[0] ?? -1;
  expect(ran.statuses[i], `block ${i} (${marker}) exited non-zero:\n${ran.blocks[i] ?? ''}\n${ran.stderr}`).toBe(0);
  return ran.outputs[i] ?? '';
}

describe('the README’s examples', () => {
  it('runs every shell block it does not skip, each exiting 0', () => {
    expect(ran.blocks.length).toBeGreaterThanOrEqual(12);
    expect(ran.statuses.map((s, i) => `${i}:${s}`)).toEqual(ran.statuses.map((_, i) => `${i}:0`));
  });

  it('lists, pages, reads, greps, compares and names languages as the comments say', () => {
    const first = output('curl -i -X POST');
    expect(first).toMatch(/HTTP\/1\.1 401/);
    expect(first).toContain('"path":"cjs"');
    const listing = output(`'{"target":"npm:react@18.3.1","paths":["cjs"]}'`);
    expect(listing).toContain('"path":"cjs/react.development.js"');
    const paged = output('CURSOR=$(');
    const page = JSON.parse(paged) as { entries: { path: string }[] };
    expect(page.entries.length).toBeGreaterThan(0);
    expect((JSON.parse(output('--data-urlencode path=package.json')) as { content: string }).content).toContain('"version": "18.3.1"');
    expect(output('/v1/grep')).toContain('useState');
    const compared = output('/v1/experimental/compare');
    expect(compared).toContain('"base"');
    expect(compared).toContain('package.json');
    expect(output('/v1/languages')).toContain('typescript');
    // The inspection, then the review (curl prints the two answers back to back).
    const packages = output('/v1/packages/upgrade-review');
    expect(packages).toMatch(/^\{"requested_target":"npm:react@18\.3\.1","canonical_target":"npm:react@18\.3\.1"/);
    expect(packages).toContain('"from":{"canonical_target":"npm:react@18.2.0"');
  });

  it('creates, lists and revokes a token with the CLI', () => {
    const tokens = output('tokens create --account ci');
    expect(tokens).toContain('ci');
    expect(tokens).toMatch(/revoked/i);
  });

  it('submits jobs as JSON and multipart, follows one, and analyses synchronously', () => {
    expect(output("Idempotency-Key: build-1234").trim()).toBe('');
    expect(output('-F format=spdx').trim()).toBe('');
    const followed = output('/events');
    expect(followed).toContain('event: snapshot');
    expect(followed).toMatch(/"state":"succeeded"/);
    expect(followed).toMatch(/"spdxVersion":\s*"SPDX-2\.3"/);
    expect(output("-F format=text -F 'file=@package-lock.json")).toMatch(/^pkgscope inventory/m);
    expect(output('sys_platform')).toMatch(/^pkgscope inventory/m);
    // The mirror's sources, then a CycloneDX document asked with vulnerabilities.
    const advised = output('/v1/advisories -H');
    expect(advised).toMatch(/^\{"sources":\[/);
    // curl prints the two answers back to back: the sources object, then the document.
    const end = advised.indexOf(']}') + 2;
    expect(JSON.parse(advised.slice(0, end))).toMatchObject({ sources: expect.any(Array) as unknown });
    // Here the mirror is empty (OSV is out of reach): the document is made all the same, with no match.
    const document = JSON.parse(advised.slice(end)) as { bomFormat: string; vulnerabilities?: unknown[] };
    expect(document.bomFormat).toBe('CycloneDX');
    expect(document.vulnerabilities ?? []).toEqual([]);
  });

  it('runs the CLI examples on the project folder', async () => {
    output('sbom --format spdx --output sbom.spdx.json');
    const written = JSON.parse(await readFile(join(project, 'sbom.spdx.json'), 'utf8')) as { spdxVersion: string; packages: unknown[] };
    expect(written.spdxVersion).toBe('SPDX-2.3');
    expect(written.packages.length).toBeGreaterThan(1);
  });
});
