import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as CDX from '@cyclonedx/cyclonedx-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { anyPackage, startFixtureRegistry, type FixtureRegistry } from '../helpers/registry.js';

let work: string;
let registry: FixtureRegistry;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'pkgscope-cli-'));
  registry = await startFixtureRegistry({ fallback: anyPackage });
});
afterAll(async () => {
  await registry.close();
  await rm(work, { recursive: true, force: true });
});

const workspace = join(FIXTURES, 'lockfiles/workspaces/pnpm9');

describe('pkgscope sbom', () => {
  it('writes a valid CycloneDX document for a folder, offline, to stdout', async () => {
    const result = await runCli(['sbom', '--offline', workspace]);
    expect(result.code).toBe(0);
    const validator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7);
    expect(await validator.validate(result.stdout)).toBeNull();
    const bom = JSON.parse(result.stdout) as { metadata: { component?: { type: string } }; components: { name: string; group?: string }[] };
    const names = bom.components.map((c) => (c.group ? `${c.group}/${c.name}` : c.name));
    // 17 packages and workspace members; the workspace root is the document's subject.
    expect(names).toHaveLength(17);
    expect(bom.metadata.component?.type).toBe('application');
    expect(names).toEqual(expect.arrayContaining(['@fx/a', '@fx/b', 'lodash', 'react']));
    // An offline document says so: it never passes for an enriched one.
    const notice = (JSON.parse(result.stdout) as { properties: { name: string; value: string }[] }).properties.find((p) => p.name === 'service:notice')?.value;
    expect(notice).toMatch(/No registry was consulted \(offline\): \d+ component\(s\) carry only what the lockfile records\./);
  });

  it('enriches from the configured registry, caching on disk, and writes to --output', async () => {
    const env = { npm_config_registry: `${registry.url}/`, XDG_CACHE_HOME: join(work, 'cache') };
    const output = join(work, 'out.spdx.json');
    const first = await runCli(['sbom', '--format', 'spdx', '--output', output, workspace], env);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/wrote .*out\.spdx\.json \(\d+ bytes, spdx\)/);
    const doc = JSON.parse(await readFile(output, 'utf8')) as { packages: { name: string; licenseDeclared: string }[] };
    expect(doc.packages.find((p) => p.name === 'chalk')?.licenseDeclared).toBe('MIT');
    const fetched = registry.requests.length;
    expect(fetched).toBeGreaterThan(10);
    const second = await runCli(['sbom', '--format', 'text', workspace], env);
    expect(second.code).toBe(0);
    expect(registry.requests.length).toBe(fetched);
  });

  it('reads explicit files with paths relative to their common folder', async () => {
    const dir = join(work, 'explicit');
    await rm(dir, { recursive: true, force: true });
    await writeFile(join(work, 'stray.txt'), 'x');
    const result = await runCli(['sbom', '--offline', '--format', 'text', join(FIXTURES, 'lockfiles/small/yarn1/yarn.lock'), join(FIXTURES, 'lockfiles/small/yarn1/package.json')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^lockfile: +yarn\.lock \(yarn-classic 1, 89 entries\)$/m);
  });

  it('passes over a binary lockfile found in a folder, but refuses one named explicitly', async () => {
    const dir = await mkdtemp(join(work, 'bunb-'));
    for (const name of ['package.json', 'package-lock.json']) {
      await writeFile(join(dir, name), await readFile(join(FIXTURES, 'lockfiles/small/npm3', name)));
    }
    await writeFile(join(dir, 'bun.lockb'), Buffer.from([0x00, 0xff, 0xfe, 0x01]));
    const folder = await runCli(['sbom', '--offline', '--format', 'text', dir]);
    expect(folder.code).toBe(0);
    expect(folder.stdout).toMatch(/^lockfile: +package-lock\.json/m);
    const named = await runCli(['sbom', '--offline', join(dir, 'bun.lockb')]);
    expect(named.code).toBe(3);
  });

  it('skips fixture and vendor folders by default and names them; --exclude and --include adjust the walk', async () => {
    const repo = join(work, 'repo');
    await rm(repo, { recursive: true, force: true });
    await cp(join(FIXTURES, 'lockfiles/small/yarn1'), repo, { recursive: true });
    for (const [dir, fixture] of [
      ['test/fixtures/big', 'medium/npm3'],
      ['packages/a/__fixtures__/peers', 'peers/npm3'],
      ['vendor/acme', 'peers/npm3'],
      ['examples/demo', 'small/yarn1'],
      ['node_modules/dep', 'small/yarn1'],
    ] as const) {
      await mkdir(join(repo, dir), { recursive: true });
      await cp(join(FIXTURES, 'lockfiles', fixture), join(repo, dir), { recursive: true });
    }
    const lockfiles = (stdout: string): string[] => [...stdout.matchAll(/^lockfile: +(\S+)/gm)].map((m) => m[1]!).sort();

    const plain = await runCli(['sbom', '--offline', '--format', 'text', repo]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(lockfiles(plain.stdout)).toEqual(['examples/demo/yarn.lock', 'yarn.lock']);
    expect(plain.stderr).toMatch(/^skipped 3 fixture\/vendor folders \(--include GLOB reads them\): packages\/a\/__fixtures__, test\/fixtures, vendor$/m);

    const adjusted = await runCli(['sbom', '--offline', '--format', 'text', '--exclude', 'examples/**', '--include', 'vendor/**', repo]);
    expect(adjusted.code, adjusted.stderr).toBe(0);
    expect(lockfiles(adjusted.stdout)).toEqual(['vendor/acme/package-lock.json', 'yarn.lock']);
    expect(adjusted.stderr).toMatch(/skipped 2 fixture\/vendor folders .*: packages\/a\/__fixtures__, test\/fixtures$/m);

    // Text output stays within 120 columns, long install paths included.
    const everything = await runCli(['sbom', '--offline', '--format', 'text', '--include', '**', repo]);
    expect(everything.code, everything.stderr).toBe(0);
    // node_modules is read only when a glob names a path inside it.
    expect(lockfiles(everything.stdout)).toHaveLength(5);
    expect(lockfiles(everything.stdout)).not.toContain('node_modules/dep/yarn.lock');
    const widest = Math.max(...everything.stdout.split('\n').map((l) => l.length));
    expect(widest).toBeLessThanOrEqual(120);
  });

  it('exits 1 with the failure code, 2 on usage errors, 3 on unreadable input', async () => {
    await writeFile(join(work, 'notes.json'), '{"hello": "world"}');
    const failed = await runCli(['sbom', '--offline', join(work, 'notes.json')]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/analysis failed: no_manifest_evidence/);
    // The failure names the file and what was wrong with it.
    expect(failed.stderr).toMatch(/^ {2}notes\.json: .+ \[not_recognised\]$/m);
    const usage = await runCli(['sbom', '--format', 'xml', workspace]);
    expect(usage.code).toBe(2);
    const missing = await runCli(['sbom', join(work, 'does-not-exist')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/cannot read/);
  });
});
