import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SERVICE_VERSION } from '../src/version.js';
import { track } from './helpers/processes.js';
import { BUILT_CLI, ROOT } from './helpers/build.js';

const SMALL = fileURLToPath(new URL('./fixtures/lockfiles/small', import.meta.url));

async function packageVersion(): Promise<string> {
  return (JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** `node dist/src/cli.js sbom --offline --format cyclonedx SMALL`: the document the built CLI writes. */
async function builtCycloneDx(): Promise<{ metadata: { tools: { components: { name: string; version?: string }[] } } }> {
  const child = track(spawn(process.execPath, [BUILT_CLI, 'sbom', '--offline', '--format', 'cyclonedx', SMALL], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }), 'built pkgscope sbom');
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const [code] = (await once(child, 'close')) as [number | null];
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as { metadata: { tools: { components: { name: string; version?: string }[] } } };
}

describe('service version', () => {
  it('is the version package.json states', async () => {
    expect(SERVICE_VERSION).toBe(await packageVersion());
  });

  it('is the version the built CLI writes into its documents', async () => {
      const doc = await builtCycloneDx();
    const tool = doc.metadata.tools.components.find((c) => c.name === 'pkgscope');
    expect(tool?.version).toBe(await packageVersion());
  }, 300_000);
});
