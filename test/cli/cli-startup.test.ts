/**
 * What `pkgscope` loads before it knows its command: the static import graph of src/cli.ts (its
 * commands and the configuration are imported when they run). `--help` and a usage error cost only
 * this graph; every command pays it and the configuration's first, so these hold no ecosystem's
 * code, no logger, no package from node_modules. (Configuration once reached every
 * ecosystem's parsers and pino, 122 files and about 150 ms of CPU before `--help` printed.)
 */
import { build } from 'esbuild';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ECOSYSTEMS } from '../../src/ecosystems/index.js';
import { DEFAULT_PACKAGE_REGISTRIES, REGISTRY_KEYS } from '../../src/ecosystems/registries.js';
import { ROOT } from '../helpers/build.js';

/** The files `entry` imports statically, transitively (dynamic imports and node's built-ins left out), relative to the root. */
async function staticGraph(entry: string): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
    plugins: [
      {
        name: 'static-only',
        setup: (bundler) => bundler.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' || args.path.startsWith('node:') ? { path: args.path, external: true } : undefined)),
      },
    ],
  });
  return Object.keys(metafile.inputs).map((input) => relative(ROOT, `${ROOT}/${input}`));
}

describe('pkgscope start-up', () => {
  it('loads usage and the error types it prints only before it knows its command', async () => {
    // Configuration is read once a command needs it: `--help` and a usage error do not.
    expect((await staticGraph('src/cli.ts')).sort()).toEqual(['src/cli.ts', 'src/commands/usage.ts', 'src/config-env.ts', 'src/unreachable.ts']);
  });

  it('reaches no ecosystem but the registry data, no logger and no package when it reads configuration', async () => {
    const graph = await staticGraph('src/config.ts');
    expect(graph.filter((file) => file.includes('node_modules'))).toEqual([]);
    expect(graph.filter((file) => file.startsWith('src/ecosystems/'))).toEqual(['src/ecosystems/registries.ts']);
    expect(graph).not.toContain('src/logger.ts');
    expect(graph.length).toBeLessThanOrEqual(10);
  });

  it("reads the registries' keys and defaults from data that every registration names its registries from", () => {
    expect(ECOSYSTEMS.flatMap((e) => e.registries.map((r) => r.key))).toEqual(REGISTRY_KEYS);
    for (const e of ECOSYSTEMS) for (const r of e.registries) expect(r.base, r.key).toBe(DEFAULT_PACKAGE_REGISTRIES[r.key]);
  });
});
