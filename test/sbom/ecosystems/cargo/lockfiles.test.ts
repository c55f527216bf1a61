import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cargoEcosystem } from '../../../../src/ecosystems/cargo/analysis.js';
import { integrityChecksums } from '../../../../src/sbom/describe.js';
import { buildFiles, cargoUpload, edgesOf, inScope, label, packageHeaders } from './helpers.js';

const eco = cargoEcosystem(null);

function lockOf(set: string): string {
  const lock = cargoUpload(set).find((f) => f.path === 'Cargo.lock');
  if (!lock) throw new Error(`${set} has no Cargo.lock`);
  return lock.content;
}

describe('Cargo.lock v1 with a package manifest', () => {
  it('gives one component per [[package]] but the root, exact edges, graph scopes and [metadata] checksums', async () => {
    const result = await buildFiles(cargoUpload('v1-package'));
    const { inventory, problems } = result;
    expect(problems).toEqual([]);
    // 13 [[package]] tables, one of them the project itself.
    expect(packageHeaders(lockOf('v1-package'))).toBe(13);
    expect(inventory.occurrences).toHaveLength(13);
    expect(inventory.lockfiles).toEqual([{ path: 'Cargo.lock', kind: 'Cargo.lock', version: '1', entries: 12 }]);
    const root = inventory.occurrences.find((o) => inventory.roots.includes(o.ref));
    expect(root && { name: root.name, version: root.version, source: root.source, license: root.license }).toEqual({
      name: 'mdcat-lite',
      version: '0.2.1',
      source: 'root',
      license: 'Apache-2.0',
    });
    expect(inScope(result, 'dev')).toEqual(['difference@2.0.0', 'pretty_assertions@0.5.1']);
    expect(inScope(result, 'optional')).toEqual([]);
    expect(inScope(result, 'required')).toHaveLength(10);
    expect(edgesOf(result)).toEqual([
      'ansi_term@0.11.0 -> winapi@0.3.6 (prod)',
      'mdcat-lite@0.2.1 -> ansi_term@0.11.0 (prod)',
      'mdcat-lite@0.2.1 -> pretty_assertions@0.5.1 (dev)',
      'mdcat-lite@0.2.1 -> pulldown-cmark@0.2.0 (prod)',
      'mdcat-lite@0.2.1 -> syntect-lite@0.1.0 (git) (prod)',
      'mdcat-lite@0.2.1 -> version_check@0.1.5 (prod)',
      'pretty_assertions@0.5.1 -> ansi_term@0.11.0 (prod)',
      'pretty_assertions@0.5.1 -> difference@2.0.0 (prod)',
      'pulldown-cmark@0.2.0 -> bitflags@1.0.4 (prod)',
      'pulldown-cmark@0.2.0 -> unicase@2.2.0 (prod)',
      'syntect-lite@0.1.0 (git) -> unicase@1.4.2 (prod)',
      'unicase@1.4.2 -> version_check@0.1.5 (prod)',
      'unicase@2.2.0 -> version_check@0.1.5 (prod)',
      'winapi@0.3.6 -> winapi-i686-pc-windows-gnu@0.4.0 (prod)',
      'winapi@0.3.6 -> winapi-x86_64-pc-windows-gnu@0.4.0 (prod)',
    ]);
    const bitflags = inventory.occurrences.find((o) => o.name === 'bitflags');
    // sha256("bitflags-1.0.4"), as the fixture's [metadata] records it.
    expect(integrityChecksums(bitflags?.integrity ?? null)).toEqual([
      { algorithm: 'SHA-256', hex: createHash('sha256').update('bitflags-1.0.4').digest('hex') },
    ]);
    // "<none>" for the git package is not a checksum.
    expect(inventory.occurrences.find((o) => o.name === 'syntect-lite')?.integrity).toBeNull();
    expect(inventory.associations).toEqual([{ manifest: 'Cargo.toml', lockfile: 'Cargo.lock', role: 'root' }]);
    expect(inventory.declarations).toEqual([]);
  });

  it('purls: crates.io crates plain, the git crate with vcs_url at its commit, the project none', async () => {
    const { inventory } = await buildFiles(cargoUpload('v1-package'));
    const purls = Object.fromEntries(inventory.occurrences.map((o) => [label(o), eco.purl(o)]));
    expect(purls['unicase@1.4.2']).toBe('pkg:cargo/unicase@1.4.2');
    expect(purls['syntect-lite@0.1.0']).toBe(
      'pkg:cargo/syntect-lite@0.1.0?vcs_url=git%2Bhttps%3A%2F%2Fgithub.com%2Fexample%2Fsyntect-lite%400a1b2c3d4e5f60718293a4b5c6d7e8f901234567',
    );
    expect(purls['mdcat-lite@0.2.1']).toBeNull();
  });

  it('reads the legacy [root] table; a lockfile alone states no scope', async () => {
    const result = await buildFiles(cargoUpload('v1-root'));
    const { inventory } = result;
    expect(inventory.occurrences.map(label).sort()).toEqual(['hello@0.1.0', 'libc@0.2.20', 'rand@0.3.15']);
    expect(inventory.roots).toEqual(['Cargo.lock#hello@0.1.0']);
    expect(inventory.occurrences.filter((o) => !inventory.roots.includes(o.ref)).every((o) => !o.scopeKnown)).toBe(true);
    expect(edgesOf(result)).toEqual([
      'hello@0.1.0 -> libc@0.2.20 (prod)',
      'hello@0.1.0 -> rand@0.3.15 (prod)',
      'rand@0.3.15 -> libc@0.2.20 (prod)',
    ]);
    expect(inventory.lockfiles[0]?.version).toBe('1');
  });
});

describe('Cargo.lock v3 workspace', () => {
  it('members are roots, the excluded path crate a file component, scopes from the members’ manifests', async () => {
    const result = await buildFiles(cargoUpload('v3-workspace'));
    const { inventory, problems } = result;
    expect(problems).toEqual([]);
    expect(packageHeaders(lockOf('v3-workspace'))).toBe(38);
    // One per [[package]], and the virtual workspace itself (its Cargo.toml has no [package]).
    expect(inventory.occurrences).toHaveLength(39);
    const roots = inventory.occurrences.filter((o) => inventory.roots.includes(o.ref));
    expect(roots.map((o) => [label(o), o.source, o.license])).toEqual([
      ['project@', 'root', null],
      ['tiles-app@0.4.0', 'workspace', 'MIT OR Apache-2.0'],
      ['tiles-core@0.4.0', 'workspace', 'MIT'],
    ]);
    expect(inventory.lockfiles).toEqual([{ path: 'Cargo.lock', kind: 'Cargo.lock', version: '3', entries: 36 }]);
    const patched = inventory.occurrences.find((o) => o.name === 'patched-log');
    expect([patched?.source, patched && eco.purl(patched)]).toEqual(['file', null]);

    expect(inScope(result, 'dev')).toEqual(['diff@0.1.13', 'itoa@1.0.10', 'pretty_assertions@1.4.0', 'ryu@1.0.17', 'serde_json@1.0.114', 'yansi@0.5.1']);
    expect(inScope(result, 'optional')).toEqual([
      'once_cell@1.19.0',
      'pin-project-lite@0.2.13',
      'proc-macro2@1.0.79',
      'quote@1.0.35',
      'serde@1.0.197',
      'serde_derive@1.0.197',
      'syn@2.0.52',
      'tracing-core@0.1.32',
      'tracing@0.1.40',
      'unicode-ident@1.0.12',
    ]);
    expect(inScope(result, 'required')).toEqual([
      'cc@1.0.90',
      'cfg-if@1.0.0',
      'getrandom@0.1.16',
      'getrandom@0.2.12',
      'libc@0.2.153',
      'log@0.4.21',
      'patched-log@0.1.0',
      'ppv-lite86@0.2.17',
      'rand@0.7.3',
      'rand@0.8.5',
      'rand_chacha@0.2.2',
      'rand_chacha@0.3.1',
      'rand_core@0.5.1',
      'rand_core@0.6.4',
      'termcolor@1.4.1',
      'wasi@0.9.0+wasi-snapshot-preview1',
      'winapi-i686-pc-windows-gnu@0.4.0',
      'winapi-util@0.1.6',
      'winapi-x86_64-pc-windows-gnu@0.4.0',
      'winapi@0.3.9',
    ]);
    expect(inventory.associations.map((a) => [a.manifest, a.role])).toEqual([
      ['Cargo.toml', 'root'],
      ['crates/app/Cargo.toml', 'workspace'],
      ['crates/core/Cargo.toml', 'workspace'],
    ]);
  });

  it('resolves "name version" references to the exact one of several versions', async () => {
    const edges = edgesOf(await buildFiles(cargoUpload('v3-workspace')));
    expect(edges.filter((e) => e.startsWith('tiles-app@0.4.0'))).toEqual([
      'tiles-app@0.4.0 -> cc@1.0.90 (prod)',
      'tiles-app@0.4.0 -> log@0.4.21 (prod)',
      'tiles-app@0.4.0 -> patched-log@0.1.0 (prod)',
      'tiles-app@0.4.0 -> pretty_assertions@1.4.0 (dev)',
      'tiles-app@0.4.0 -> rand@0.7.3 (prod)',
      'tiles-app@0.4.0 -> rand@0.8.5 (prod)',
      'tiles-app@0.4.0 -> termcolor@1.4.1 (prod)',
      'tiles-app@0.4.0 -> tiles-core@0.4.0 (prod)',
      'tiles-app@0.4.0 -> tracing@0.1.40 (optional)',
      'tiles-app@0.4.0 -> winapi-util@0.1.6 (prod)',
    ]);
    expect(edges.filter((e) => e.startsWith('rand_core@'))).toEqual([
      'rand_core@0.5.1 -> getrandom@0.1.16 (prod)',
      'rand_core@0.6.4 -> getrandom@0.2.12 (prod)',
    ]);
    expect(edges.filter((e) => e.startsWith('tiles-core@'))).toEqual([
      'tiles-core@0.4.0 -> libc@0.2.153 (dev)',
      'tiles-core@0.4.0 -> log@0.4.21 (prod)',
      'tiles-core@0.4.0 -> serde@1.0.197 (optional)',
      'tiles-core@0.4.0 -> serde_json@1.0.114 (dev)',
    ]);
    // The virtual workspace has an edge to each member.
    expect(edges.filter((e) => e.startsWith('project@'))).toEqual(['project@ -> tiles-app@0.4.0 (prod)', 'project@ -> tiles-core@0.4.0 (prod)']);
    // Every dependency string of the lockfile is one edge (all resolve, none repeats).
    const recorded = edges.filter((e) => !e.startsWith('project@'));
    expect(recorded).toHaveLength(lockOf('v3-workspace').split('\n').filter((l) => /^ "[^"]+",$/.test(l)).length);
    expect(recorded).toHaveLength(54);
  });

  it('with the lockfile alone, path packages are members and no scope is stated', async () => {
    const result = await buildFiles(cargoUpload('v3-workspace').filter((f) => f.path === 'Cargo.lock'));
    const { inventory } = result;
    expect(inventory.roots.sort()).toEqual(['Cargo.lock#patched-log@0.1.0', 'Cargo.lock#tiles-app@0.4.0', 'Cargo.lock#tiles-core@0.4.0']);
    expect(inventory.occurrences.filter((o) => !inventory.roots.includes(o.ref)).every((o) => !o.scopeKnown)).toBe(true);
    expect(inventory.associations).toEqual([]);
  });
});

describe('Cargo.lock v3 workspace, part of the manifests', () => {
  it('members whose manifests are missing stay members; scopes are not stated without every member manifest', async () => {
    const files = cargoUpload('v3-workspace').filter((f) => ['Cargo.lock', 'Cargo.toml', 'crates/app/Cargo.toml'].includes(f.path));
    const result = await buildFiles(files);
    const { inventory } = result;
    // tiles-core's manifest is missing: nothing says it is not a member. patched-log is a path
    // dependency of tiles-app pointing into the excluded vendor/ folder: not a member.
    expect(inventory.roots).toEqual(['Cargo.lock#.', 'Cargo.lock#tiles-app@0.4.0', 'Cargo.lock#tiles-core@0.4.0']);
    expect(inventory.occurrences.find((o) => o.name === 'patched-log')?.source).toBe('file');
    expect(inventory.occurrences.filter((o) => !inventory.roots.includes(o.ref)).every((o) => !o.scopeKnown)).toBe(true);
    expect(inventory.associations.map((a) => a.manifest)).toEqual(['Cargo.toml', 'crates/app/Cargo.toml']);
  });
});

describe('vendored crates', () => {
  it('a `cargo vendor` copy of a crate the lockfile records is not a project of its own', async () => {
    const vendored = { path: 'vendor/bytes/Cargo.toml', content: '[package]\nname = "bytes"\nversion = "1.5.0"\n\n[dependencies]\nserde = { version = "1", optional = true }\n' };
    const { inventory } = await buildFiles([...cargoUpload('v4-git'), vendored]);
    expect(inventory.roots).toEqual(['Cargo.lock#fetcher@1.2.0']);
    expect(inventory.declarations).toEqual([]);
    expect(inventory.resolutions.map((r) => r.outcome)).toEqual(['lockfile']);
  });
});

describe('Cargo.lock v4', () => {
  it('tells a git crate from the crates.io crate of the same name and version, and skips [[patch.unused]]', async () => {
    const result = await buildFiles(cargoUpload('v4-git'));
    const { inventory, problems } = result;
    expect(problems).toEqual([]);
    expect(packageHeaders(lockOf('v4-git'))).toBe(10);
    expect(inventory.occurrences).toHaveLength(10);
    expect(inventory.lockfiles[0]).toEqual({ path: 'Cargo.lock', kind: 'Cargo.lock', version: '4', entries: 9 });
    expect(inventory.occurrences.some((o) => o.name === 'tokio-lite')).toBe(false);
    expect(inventory.notices).toEqual(['Cargo.lock: 1 unused [patch] entry is not a component']);
    expect(edgesOf(result)).toEqual([
      'fetcher@1.2.0 -> hyper-util@0.1.3 (git) (prod)',
      'fetcher@1.2.0 -> internal-auth@2.0.1 (prod)',
      'fetcher@1.2.0 -> mockito-lite@0.3.0 (dev)',
      'fetcher@1.2.0 -> reqwest-lite@0.11.0 (prod)',
      'fetcher@1.2.0 -> serde_json@1.0.114 (prod)',
      'hyper-util@0.1.3 (git) -> bytes@1.5.0 (prod)',
      'hyper-util@0.1.3 -> bytes@1.5.0 (prod)',
      'internal-auth@2.0.1 -> serde_json@1.0.114 (prod)',
      'mockito-lite@0.3.0 -> hyper-util@0.1.3 (prod)',
      'reqwest-lite@0.11.0 -> bytes@1.5.0 (prod)',
      'reqwest-lite@0.11.0 -> hyper-util@0.1.3 (prod)',
      'serde_json@1.0.114 -> itoa@1.0.10 (prod)',
      'serde_json@1.0.114 -> ryu@1.0.17 (prod)',
    ]);
    expect(inScope(result, 'dev')).toEqual(['mockito-lite@0.3.0']);
    expect(inScope(result, 'required')).toHaveLength(8);
  });

  it('decodes the v4 branch, purls the git commit and the other registry, keeps crates.io crates registry', async () => {
    const { inventory } = await buildFiles(cargoUpload('v4-git'));
    const git = inventory.occurrences.find((o) => o.source === 'git');
    expect(git && eco.purl(git)).toBe(
      'pkg:cargo/hyper-util@0.1.3?vcs_url=git%2Bhttps%3A%2F%2Fgithub.com%2Fexample%2Fhyper-util%401111111111111111111111111111111111111111',
    );
    const internal = inventory.occurrences.find((o) => o.name === 'internal-auth');
    // Another registry's crate is not a crates.io coordinate: never enriched from crates.io.
    expect(internal?.source).toBe('tarball');
    expect(internal && eco.purl(internal)).toBe('pkg:cargo/internal-auth@2.0.1?repository_url=https%3A%2F%2Fcrates.internal.example%2Findex%2F');
    const bytes = inventory.occurrences.find((o) => o.name === 'bytes');
    expect([bytes?.source, bytes?.resolved, bytes && eco.purl(bytes)]).toEqual([
      'registry',
      'https://crates.io/api/v1/crates/bytes/1.5.0/download',
      'pkg:cargo/bytes@1.5.0',
    ]);
    expect(inventory.occurrences.filter((o) => o.name === 'hyper-util').map((o) => o.ref)).toEqual([
      'Cargo.lock#hyper-util@0.1.3',
      'Cargo.lock#hyper-util@0.1.3 (git+https://github.com/example/hyper-util?branch=feature%2Fasync#1111111111111111111111111111111111111111)',
    ]);
  });
});

describe('Cargo.toml without Cargo.lock', () => {
  it('keeps every requirement a declaration, with Cargo’s words for where it was declared', async () => {
    const { inventory, problems } = await buildFiles(cargoUpload('manifest-only'));
    expect(problems).toEqual([]);
    expect(inventory.occurrences.map((o) => [label(o), o.source, o.license])).toEqual([['grepper@0.3.0-alpha.1', 'root', 'Unlicense OR MIT']]);
    expect(inventory.declarations.map((d) => [d.name, d.range, d.kind])).toEqual([
      ['regex', '1.10', 'dependencies'],
      ['pcre2', '0.2', 'dependencies'],
      ['memchr', '2.7', 'dependencies'],
      ['walkdir', '2', 'dependencies'],
      ['local-utils', 'path+../utils', 'dependencies'],
      ['fancy', 'git+https://github.com/example/fancy?tag=v0.1.0', 'dependencies'],
      ['tempfile', '3', 'dev-dependencies'],
      ['autocfg', '1', 'build-dependencies'],
      ['winapi-util', '0.1', "target.'cfg(windows)'.dependencies"],
    ]);
    expect(inventory.declarations.every((d) => d.ecosystem === 'cargo' && d.manifest === 'Cargo.toml')).toBe(true);
    expect(inventory.associations).toEqual([{ manifest: 'Cargo.toml', lockfile: null, role: 'standalone' }]);
    expect(inventory.resolutions.map((r) => r.outcome)).toEqual(['resolution_failed']);
    expect(inventory.lockfiles).toEqual([]);
  });

  it('a workspace member without a lockfile inherits from [workspace.dependencies]', async () => {
    const files = cargoUpload('v3-workspace').filter((f) => f.path !== 'Cargo.lock');
    const { inventory } = await buildFiles(files);
    expect(inventory.roots.map((r) => r.split('#')[1])).toEqual(['tiles-app', 'tiles-core', 'patched-log']);
    const core = inventory.declarations.filter((d) => d.manifest === 'crates/core/Cargo.toml');
    expect(core.map((d) => [d.name, d.range, d.kind])).toEqual([
      ['serde', '1.0.197', 'dependencies'],
      ['log', '0.4', 'dependencies'],
      ['serde_json', '1', 'dev-dependencies'],
      ['libc', '0.2', "target.'cfg(unix)'.dev-dependencies"],
    ]);
    const app = inventory.occurrences.find((o) => o.name === 'tiles-app');
    expect([app?.version, app?.license]).toEqual(['0.4.0', 'MIT OR Apache-2.0']);
  });
});
