import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
