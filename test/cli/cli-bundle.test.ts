/**
 * The built `pkgscope sbom` runs from a bundle (scripts/bundle-cli.js writes dist/cli/ from
 * dist/src/). These tests run the built CLI (test/global-setup.ts builds it when stale):
 * they compare the bundle with the built modules it is made from, not with the sources, so a
 * stale build does not fail them. They check that every ecosystem's chunk loads and that the
 * bundle writes the same documents as the modules.
 */
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, ROOT } from '../helpers/build.js';
import { fixture } from '../helpers/fixtures.js';
import { spawnTracked } from '../helpers/processes.js';

const BUNDLE = join(ROOT, 'dist', 'cli', 'sbom.js');
const MODULES = join(ROOT, 'dist', 'src', 'commands', 'sbom.js');

/** One small file of each ecosystem, shaped as the tools write them. */
const PROJECT: Readonly<Record<string, string>> = {
  'web/package.json': fixture('lockfiles/small/npm3/package.json'),
  'web/package-lock.json': fixture('lockfiles/small/npm3/package-lock.json'),
  'ui/pnpm-lock.yaml': fixture('lockfiles/small/pnpm7/pnpm-lock.yaml'),
  'svc/go.mod': 'module example.test/svc\n\ngo 1.22\n\nrequire github.com/google/uuid v1.6.0\n',
  'svc/go.sum': 'github.com/google/uuid v1.6.0 h1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=\ngithub.com/google/uuid v1.6.0/go.mod h1:TIyPZe4MgqvfeYDBFedMoGGpEw/LqOeaOT+nhxU+yHo=\n',
  'py/requirements.txt': 'six==1.16.0\n',
  'rs/Cargo.lock': fixture('lockfiles/cargo/v3-workspace/Cargo.lock'),
  'rb/Gemfile.lock': fixture('lockfiles/gem/rails-app/Gemfile.lock'),
  'php/composer.lock': fixture('lockfiles/composer/shop/composer.lock'),
  'dart/pubspec.lock': `packages:\n  http:\n    dependency: "direct main"\n    description:\n      name: http\n      sha256: "${'a'.repeat(64)}"\n      url: "https://pub.dev"\n    source: hosted\n    version: "1.2.1"\nsdks:\n  dart: ">=3.0.0 <4.0.0"\n`,
  'ex/mix.lock': `%{\n  "jason": {:hex, :jason, "1.4.1", "${'b'.repeat(64)}", [:mix], [], "hexpm", "${'c'.repeat(64)}"},\n}\n`,
  'net/packages.lock.json': JSON.stringify({ version: 1, dependencies: { 'net8.0': { 'Newtonsoft.Json': { type: 'Direct', requested: '[13.0.3, )', resolved: '13.0.3', contentHash: 'AAAA' } } } }),
  'ios/Package.resolved': JSON.stringify({
    pins: [{ identity: 'swift-argument-parser', kind: 'remoteSourceControl', location: 'https://github.com/apple/swift-argument-parser.git', state: { revision: 'd'.repeat(40), version: '1.3.1' } }],
    version: 2,
  }),
  'pods/Podfile.lock': 'PODS:\n  - Alamofire (5.8.1)\n\nDEPENDENCIES:\n  - Alamofire (~> 5.8)\n\nSPEC REPOS:\n  trunk:\n    - Alamofire\n\nSPEC CHECKSUMS:\n  Alamofire: 3ca42e259043ee0dc5c0cdd76c4bc568b8e42af7\n\nPODFILE CHECKSUM: 0000\n\nCOCOAPODS: 1.15.2\n',
  'jvm/gradle.lockfile': '# This is a Gradle generated file for dependency locking.\ncom.google.guava:guava:33.0.0-jre=compileClasspath,runtimeClasspath\nempty=annotationProcessor\n',
};

/** OSV fixtures of several ecosystems (test/fixtures/advisories). */
const ADVISORY_FIXTURES = join(ROOT, 'test', 'fixtures', 'advisories');

const PURL_TYPES = ['cargo', 'cocoapods', 'composer', 'gem', 'golang', 'hex', 'maven', 'npm', 'nuget', 'pub', 'pypi', 'swift'];

/** Runs node with `args`; its exit code and stderr. */
async function node(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const child = spawnTracked(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] }, 'node (sbom command)');
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stderr };
}

/** The command of dist/src/commands/sbom.js, called as dist/src/cli.js calls the bundle's. */
const viaModules = (argv: readonly string[]): string[] => [
  '--input-type=module',
  '-e',
  `const { sbomCommand } = await import(${JSON.stringify(MODULES)});
   const io = { out: (l) => process.stdout.write(l + '\\n'), err: (l) => process.stderr.write(l + '\\n'), writeOut: (t) => process.stdout.write(t), progress: null };
   process.exitCode = await sbomCommand(${JSON.stringify(argv)}, io, 30000);`,
];

/** A document without what differs from run to run. */
async function stable(file: string, format: string): Promise<string> {
  const text = await readFile(file, 'utf8');
  if (format === 'text') return text.replace(/^generated: .*$/m, '');
  const { serialNumber, documentNamespace, ...doc } = JSON.parse(text) as Record<string, unknown> & { metadata?: Record<string, unknown>; creationInfo?: Record<string, unknown> };
  expect(serialNumber ?? documentNamespace).toBeTypeOf('string');
  delete doc.metadata?.['timestamp'];
  delete doc.creationInfo?.['created'];
  return JSON.stringify(doc);
}

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'pkgscope-cli-bundle-'));
  for (const [path, content] of Object.entries(PROJECT)) {
    await mkdir(dirname(join(work, 'project', path)), { recursive: true });
    await writeFile(join(work, 'project', path), content);
  }
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the built CLI', () => {
  it('is built, with the sbom command bundled', () => {
    expect(existsSync(BUILT_CLI) && existsSync(BUNDLE), 'dist/ is missing or incomplete: run `npm run build`').toBe(true);
  });

  it('locates files from each bundled module where the module was built (the CycloneDX validator beside its module)', async () => {
    const chunks = (await readdir(dirname(BUNDLE))).filter((name) => name.endsWith('.js'));
    const located = new Set<string>();
    for (const chunk of chunks) {
      for (const [, path] of (await readFile(join(dirname(BUNDLE), chunk), 'utf8')).matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)) located.add(path ?? '');
    }
    expect([...located].map((path) => relative(ROOT, join(dirname(BUNDLE), path)))).toContain(join('dist', 'src', 'sbom', 'validate', 'cyclonedx.js'));
    for (const path of located) expect(existsSync(join(dirname(BUNDLE), path)), path).toBe(true);
  });

  it('shares the modules cli.js loads itself: a usage error from the bundled command is reported as one, exit code 2', async () => {
    const bogus = await node([BUILT_CLI, 'sbom', '--format', 'bogus', join(work, 'project')], {});
    expect(bogus).toEqual({ code: 2, stderr: 'pkgscope: --format must be one of cyclonedx, spdx, text\n' });
  });

  it.each(['cyclonedx', 'spdx', 'text'])('writes the same %s document from its bundle as from its modules, every ecosystem loaded', async (format) => {
    const env = { XDG_CACHE_HOME: join(work, 'cache'), PACKAGE_REGISTRIES: '' };
    const argv = (out: string) => ['--offline', '--format', format, '--output', join(work, out), join(work, 'project')];
    const bundled = await node([BUILT_CLI, 'sbom', ...argv(`bundle.${format}`)], env);
    expect(bundled.code, bundled.stderr).toBe(0);
    const modules = await node(viaModules(argv(`modules.${format}`)), env);
    expect(modules.code, modules.stderr).toBe(0);
    // Notices and the summary line, but for the output's name.
    expect(bundled.stderr.replace(`bundle.${format}`, 'out')).toBe(modules.stderr.replace(`modules.${format}`, 'out'));
    expect(await stable(join(work, `bundle.${format}`), format)).toBe(await stable(join(work, `modules.${format}`), format));
    if (format === 'cyclonedx') {
      const doc = JSON.parse(await readFile(join(work, `bundle.${format}`), 'utf8')) as { components: { purl?: string }[] };
      const types = new Set(doc.components.map((c) => /^pkg:([^/]+)\//.exec(c.purl ?? '')?.[1]));
      expect([...types].filter((t) => t !== undefined).sort()).toEqual(PURL_TYPES);
    }
  });

  it('validates advisories against the OSV schema from its bundle as from its modules (the schema file found beside its module)', async () => {
    const advisories = join(work, 'advisories');
    await cp(ADVISORY_FIXTURES, advisories, { recursive: true });
    // One entry the schema refuses (no `modified`): both sides skip it and say so.
    await writeFile(join(advisories, 'npm', 'BROKEN-1.json'), JSON.stringify({ id: 'BROKEN-1' }));
    const env = { XDG_CACHE_HOME: join(work, 'cache'), PACKAGE_REGISTRIES: '' };
    const argv = (out: string) => ['--offline', '--vulnerabilities', '--advisories', advisories, '--output', join(work, out), join(work, 'project')];
    const bundled = await node([BUILT_CLI, 'sbom', ...argv('bundle-vulns.json')], env);
    expect(bundled.code, bundled.stderr).toBe(0);
    expect(bundled.stderr).toContain('1 advisory entries skipped (not valid OSV documents)');
    const modules = await node(viaModules(argv('modules-vulns.json')), env);
    expect(modules.code, modules.stderr).toBe(0);
    expect(bundled.stderr.replace('bundle-vulns', 'out')).toBe(modules.stderr.replace('modules-vulns', 'out'));
    const document = await stable(join(work, 'bundle-vulns.json'), 'cyclonedx');
    expect(document).toBe(await stable(join(work, 'modules-vulns.json'), 'cyclonedx'));
    expect(document).toContain('service:advisories');
  });
});
