import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCli } from '../helpers/cli.js';

/**
 * `pkgscope sbom` with registries that cannot be reached (a firewalled CI): the document is still
 * written, with those components as the lockfiles record them and a notice naming each host; stderr
 * warns once per host with its count; the process exits once it has written.
 */

const CRATES = ['anyhow 1.0.86', 'bitflags 2.6.0', 'cfg-if 1.0.0', 'libc 0.2.155', 'memchr 2.7.4'];
const CARGO_LOCK = `version = 4\n\n${CRATES.map((c) => {
  const [name, version] = c.split(' ');
  return `[[package]]\nname = "${name}"\nversion = "${version}"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n`;
}).join('\n')}`;
const REQUIREMENTS = 'requests==2.32.3\nidna==3.7\n';

let work: string;
let project: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'pkgscope-cli-unreachable-'));
  project = join(work, 'project');
  await mkdir(join(project, 'tool'), { recursive: true });
  await writeFile(join(project, 'Cargo.lock'), CARGO_LOCK);
  await writeFile(join(project, 'tool', 'requirements.txt'), REQUIREMENTS);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface Notice {
  readonly notice: string;
  readonly components: number;
}

async function documentAt(path: string): Promise<Notice> {
  const bom = JSON.parse(await readFile(path, 'utf8')) as { properties?: { name: string; value: string }[]; components: unknown[] };
  return { notice: bom.properties?.find((p) => p.name === 'service:notice')?.value ?? '', components: bom.components.length };
}

const warnings = (stderr: string): string[] => stderr.split('\n').filter((line) => line.includes('warning:'));

describe('pkgscope sbom with registries that cannot be reached', () => {
  it('writes the document and warns once per refusing registry with its count, then exits', async () => {
    const crates = `http://127.0.0.1:${await freePort()}`;
    const pypi = `http://127.0.0.1:${await freePort()}`;
    const output = join(work, 'refused.cdx.json');
    const started = performance.now();
    const result = await runCli(['sbom', '--output', output, project], {
      XDG_CACHE_HOME: join(work, 'cache-refused'),
      PACKAGE_REGISTRIES: JSON.stringify({ crates, pypi }),
    });
    const elapsed = performance.now() - started;
    expect(result.code, result.stderr).toBe(0);
    expect(warnings(result.stderr).sort()).toEqual([
      `pkgscope: warning: crates registry ${crates} unreachable (ECONNREFUSED); 5 packages left unenriched`,
      `pkgscope: warning: pypi registry ${pypi} unreachable (ECONNREFUSED); 2 packages left unenriched`,
    ]);
    expect(result.stderr).toMatch(/^wrote .*refused\.cdx\.json \(\d+ bytes, cyclonedx\)$/m);
    const doc = await documentAt(output);
    expect(doc.components).toBe(7);
    expect(doc.notice).toContain(`crates registry at ${crates} could not be reached (connection refused): 5 component(s) carry only what the lockfile records.`);
    expect(doc.notice).toContain(`pypi registry at ${pypi} could not be reached (connection refused): 2 component(s) carry only what the lockfile records.`);
    // It exited (runCli waits for that); a generous bound, far below the minutes pending lookups used to hold it.
    expect(elapsed).toBeLessThan(30_000);
  }, 60_000);

  it('does the same when the registry’s name does not resolve', async () => {
    const output = join(work, 'dns.cdx.json');
    const result = await runCli(['sbom', '--output', output, join(project, 'Cargo.lock')], {
      XDG_CACHE_HOME: join(work, 'cache-dns'),
      // `.invalid` never resolves (RFC 6761).
      PACKAGE_REGISTRIES: JSON.stringify({ crates: 'http://crates.invalid' }),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(warnings(result.stderr)).toEqual(['pkgscope: warning: crates registry http://crates.invalid unreachable (ENOTFOUND); 5 packages left unenriched']);
    const doc = await documentAt(output);
    expect(doc.components).toBe(5);
    expect(doc.notice).toContain('crates registry at http://crates.invalid could not be reached (host name not found): 5 component(s) carry only what the lockfile records.');
  }, 60_000);
});
