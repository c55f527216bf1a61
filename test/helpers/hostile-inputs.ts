import type { InputFile } from '../../src/model/types.js';

/**
 * The reproducers of the hostile-input campaign (issue 19), and inputs of size n for the
 * linearity checks: each builds real-shaped lockfile text in memory.
 */

/** bun.lock text as bun writes it: JSON with trailing commas (which also keeps it from reading as strict JSON). */
function bunText(lock: unknown): string {
  return JSON.stringify(lock, null, 2).replace(/([}\]"0-9])\n(\s*[}\]])/g, '$1,\n$2');
}

/** pnpm-lock.yaml whose packages' `os` fields point at an 8-level alias bomb (9^8 leaves when expanded). */
export function aliasBombPnpm(references = 12): InputFile {
  const lines = ["lockfileVersion: '6.0'", '', 'bomb:', '  l0: &l0 [x, x, x, x, x, x, x, x, x]'];
  for (let level = 1; level <= 8; level++) lines.push(`  l${level}: &l${level} [${Array(9).fill(`*l${level - 1}`).join(', ')}]`);
  lines.push('', 'packages:');
  for (let i = 0; i < references; i++) {
    lines.push(`  /p${i}@1.0.0:`, `    resolution: {integrity: sha512-AAAA}`, `    os: *l8`, '    dev: false');
  }
  return { path: 'pnpm-lock.yaml', content: `${lines.join('\n')}\n` };
}

/** bun.lock with one key of `segments` `/`-separated parts. */
export function longKeyBun(segments = 16_000): InputFile {
  const key = Array(segments).fill('a').join('/');
  const lock = {
    lockfileVersion: 1,
    workspaces: { '': { name: 'root', dependencies: { a: '1.0.0' } } },
    packages: { a: ['a@1.0.0', '', { dependencies: { b: '1.0.0' } }, 'sha512-AAAA'], [key]: ['b@1.0.0', '', {}, 'sha512-BBBB'] },
  };
  return { path: 'bun.lock', content: bunText(lock) };
}

/** package-lock.json (v3) whose root depends directly on `degree` packages, each an entry. */
export function highDegreeNpm(degree = 40_000): InputFile {
  const dependencies: Record<string, string> = {};
  const packages: Record<string, unknown> = { '': { name: 'root', version: '1.0.0', dependencies } };
  for (let i = 0; i < degree; i++) {
    dependencies[`p${i}`] = '1.0.0';
    packages[`node_modules/p${i}`] = { version: '1.0.0', resolved: `https://registry.example/p${i}/-/p${i}-1.0.0.tgz`, integrity: 'sha512-AAAA' };
  }
  return { path: 'package-lock.json', content: JSON.stringify({ name: 'root', version: '1.0.0', lockfileVersion: 3, requires: true, packages }) };
}

/** package-lock.json (v3) with `count` entries nobody depends on. */
export function manyEntriesNpm(count = 130_000): InputFile {
  const packages: Record<string, unknown> = { '': { name: 'root', version: '1.0.0' } };
  for (let i = 0; i < count; i++) packages[`node_modules/p${i}`] = { version: '1.0.0' };
  return { path: 'package-lock.json', content: JSON.stringify({ name: 'root', lockfileVersion: 3, packages }) };
}

/** A berry yarn.lock of `entries` packages, each with `peers` peer dependencies (on five shared packages). */
export function manyPeersYarn(entries = 8_000, peers = 5): InputFile {
  const lines = ['__metadata:', '  version: 6', '  cacheKey: 8', ''];
  for (let q = 0; q < peers; q++) {
    lines.push(`"q${q}@npm:^1.0.0":`, '  version: 1.0.0', `  resolution: "q${q}@npm:1.0.0"`, '  languageName: node', '  linkType: hard', '');
  }
  for (let i = 0; i < entries; i++) {
    lines.push(`"p${i}@npm:^1.0.0":`, '  version: 1.0.0', `  resolution: "p${i}@npm:1.0.0"`, '  peerDependencies:');
    for (let q = 0; q < peers; q++) lines.push(`    q${q}: ^1.0.0`);
    lines.push('  languageName: node', '  linkType: hard', '');
  }
  return { path: 'yarn.lock', content: lines.join('\n') };
}

/** `{"a":` repeated: truncated JSON nested `depth` deep. */
export function deepJson(depth = 5_000, path = 'bun.lock'): InputFile {
  return { path, content: '{"a":'.repeat(depth) };
}

/** package-lock.json (v3) of `n` entries, each depending on the next two (a linear-size graph). */
export function chainNpm(n: number): InputFile {
  const packages: Record<string, unknown> = { '': { name: 'root', version: '1.0.0', dependencies: { p0: '1.0.0' } } };
  for (let i = 0; i < n; i++) {
    packages[`node_modules/p${i}`] = { version: '1.0.0', dependencies: { [`p${i + 1}`]: '1.0.0', [`p${i + 2}`]: '1.0.0' } };
  }
  return { path: 'package-lock.json', content: JSON.stringify({ name: 'root', lockfileVersion: 3, packages }) };
}

/** bun.lock of `n` entries nested four deep under their parents (`pI/x/y/z`). */
export function nestedBun(n: number): InputFile {
  const packages: Record<string, unknown> = {};
  const deps: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    deps[`p${i}`] = '1.0.0';
    packages[`p${i}`] = [`p${i}@1.0.0`, '', { dependencies: { x: '1.0.0' } }, 'sha512-AAAA'];
    packages[`p${i}/x`] = ['x@1.0.0', '', { dependencies: { y: '1.0.0' } }, 'sha512-AAAA'];
    packages[`p${i}/x/y`] = ['y@1.0.0', '', { dependencies: { z: '1.0.0', x: '1.0.0' } }, 'sha512-AAAA'];
  }
  return { path: 'bun.lock', content: bunText({ lockfileVersion: 1, workspaces: { '': { name: 'root', dependencies: deps } }, packages }) };
}

/** pnpm-lock.yaml (9.0) whose root importer depends on `n` packages, and the manifest declaring them. */
export function wideRootPnpm(n: number): InputFile[] {
  const importer = ['importers:', '  .:', '    dependencies:'];
  const packages = ['packages:'];
  const snapshots = ['snapshots:'];
  const manifestDeps: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    importer.push(`      p${i}:`, '        specifier: ^1.0.0', '        version: 1.0.0');
    packages.push(`  p${i}@1.0.0:`, '    resolution: {integrity: sha512-AAAA}');
    snapshots.push(`  p${i}@1.0.0: {}`);
    manifestDeps[`p${i}`] = '^1.0.0';
  }
  const content = ["lockfileVersion: '9.0'", '', ...importer, '', ...packages, '', ...snapshots, ''].join('\n');
  return [
    { path: 'pnpm-lock.yaml', content },
    { path: 'package.json', content: JSON.stringify({ name: 'root', version: '1.0.0', dependencies: manifestDeps }) },
  ];
}
