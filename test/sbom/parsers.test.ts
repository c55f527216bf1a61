import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseSyml } from '@yarnpkg/parsers';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { detect } from '../../src/ecosystems/npm/detect.js';
import { buildInventory } from '../../src/ecosystems/npm/build.js';
import type { Inventory, Occurrence } from '../../src/model/model.js';
import type { InputFile } from '../../src/model/types.js';
import { parseBunJson } from '../../src/ecosystems/npm/parse-bun-lock.js';
import { FIXTURES } from '../helpers/fixtures.js';

const LOCKFILES = join(FIXTURES, 'lockfiles');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

function filesOf(scenario: string, tool: string): InputFile[] {
  const root = join(LOCKFILES, scenario, tool);
  return walk(root).map((p) => ({ path: relative(root, p), content: readFileSync(p, 'utf8') }));
}

async function inventoryOf(files: InputFile[]): Promise<Inventory> {
  return buildInventory(
    detect(files),
    async (p) => ({ failed: { manifest: p.manifest.path, outcome: 'resolution_failed', detail: null } }),
    () => undefined,
  );
}

// Other ecosystems keep their fixtures beside these, under their purl type; they have their own tests.
const OTHER_ECOSYSTEMS = new Set(['cargo', 'golang', 'gem', 'composer']);
const FIXTURE_SETS = readdirSync(LOCKFILES).filter((scenario) => !OTHER_ECOSYSTEMS.has(scenario)).flatMap((scenario) =>
  readdirSync(join(LOCKFILES, scenario)).map((tool) => [scenario, tool] as const),
);

/**
 * The lockfile's own entries, read with nothing but a JSON/YAML parser: [entry key, version].
 * Project entries (the root, workspace members, links to them) are not packages.
 */
function lockfileEntries(files: InputFile[]): [string, string | null][] {
  const lock = files.find((f) => /(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lock)$/.test(f.path));
  if (!lock) throw new Error('fixture has no lockfile');
  const name = lock.path.split('/').pop();
  if (name === 'package-lock.json') {
    const data = JSON.parse(lock.content) as {
      packages?: Record<string, { version?: string; link?: boolean; resolved?: string }>;
      dependencies?: Record<string, { version: string; dependencies?: unknown }>;
      lockfileVersion: number;
    };
    if (data.lockfileVersion >= 2 && data.packages) {
      const links = new Set(Object.values(data.packages).flatMap((e) => (e.link === true && e.resolved ? [e.resolved] : [])));
      return Object.entries(data.packages)
        .filter(([k, e]) => k !== '' && e.link !== true && !links.has(k))
        .map(([k, e]) => [k, e.version ?? null]);
    }
    const out: [string, string | null][] = [];
    const walkV1 = (deps: Record<string, { version: string; dependencies?: unknown }> | undefined, parent: string): void => {
      for (const [n, e] of Object.entries(deps ?? {})) {
        const key = `${parent}node_modules/${n}`;
        out.push([key, e.version.replace(/^npm:.*@/, '')]);
        walkV1(e.dependencies as typeof deps, `${key}/`);
      }
    };
    walkV1(data.dependencies, '');
    return out;
  }
  if (name === 'yarn.lock') {
    const data = parseSyml(lock.content) as Record<string, { version?: string; resolution?: string }>;
    return Object.entries(data)
      .filter(([k, e]) => k !== '__metadata' && !(e.resolution ?? '').includes('@workspace:'))
      .map(([k, e]) => [k, e.version ?? null]);
  }
  if (name === 'pnpm-lock.yaml') {
    const docs = parseAllDocuments(lock.content).map((d) => d.toJS() as Record<string, Record<string, unknown> | undefined>);
    return docs.flatMap((doc, i) => {
      const prefix = docs.length > 1 && i < docs.length - 1 ? `env${i}:` : '';
      const version = JSON.stringify(doc['lockfileVersion']).replace(/"/g, '');
      const entries = Number.parseFloat(version) >= 9 ? doc['snapshots'] : doc['packages'];
      return Object.keys(entries ?? {}).map((k): [string, string | null] => [prefix + k, null]);
    });
  }
  const data = parseBunJson(lock.content) as { packages: Record<string, [string, ...unknown[]]> };
  return Object.entries(data.packages)
    .filter(([, v]) => !v[0].includes('@workspace:'))
    .map(([k, v]) => [k, v[0].slice(v[0].lastIndexOf('@') + 1)]);
}

const packagesOf = (inv: Inventory): Occurrence[] => inv.occurrences.filter((o) => !inv.roots.includes(o.ref));
const byName = (inv: Inventory, name: string): Occurrence[] => inv.occurrences.filter((o) => o.name === name);

describe('every lockfile entry becomes exactly one component', () => {
  it.each(FIXTURE_SETS)('%s/%s', async (scenario, tool) => {
    const files = filesOf(scenario, tool);
    const inv = await inventoryOf(files);
    const expected = lockfileEntries(files);
    const actual = packagesOf(inv);
    expect(actual.map((o) => o.installPath).sort()).toEqual(expected.map(([k]) => k).sort());
    for (const [key, version] of expected) {
      if (version === null || version.includes(':')) continue;
      expect(actual.find((o) => o.installPath === key)?.version, key).toBe(version);
    }
    // bom-refs are unique per occurrence, even where name and version repeat.
    expect(new Set(inv.occurrences.map((o) => o.ref)).size).toBe(inv.occurrences.length);
    // Every edge points at an occurrence of the same analysis.
    const refs = new Set(inv.occurrences.map((o) => o.ref));
    for (const o of inv.occurrences) for (const e of o.dependencies) expect(refs.has(e.ref)).toBe(true);
  });
});

describe('the same project through every package manager', () => {
  const signature = (inv: Inventory) =>
    packagesOf(inv)
      .map((o) => `${o.name}@${o.version ?? '?'}${o.dev ? ' dev' : ''}${o.optional ? ' optional' : ''}`)
      .sort();

  it('gives npm lockfile versions 1, 2 and 3 the same components, install paths and scopes', async () => {
    const [v1, v2, v3] = await Promise.all(['npm1', 'npm2', 'npm3'].map((t) => inventoryOf(filesOf('small', t))));
    const paths = (inv: Inventory) => packagesOf(inv).map((o) => `${o.installPath} ${o.name}@${o.version ?? ''} ${o.dev} ${o.optional}`).sort();
    expect(paths(v1!)).toEqual(paths(v3!));
    expect(paths(v2!)).toEqual(paths(v3!));
  });

  it('gives pnpm 5.4, 6.0 and 9.0, bun and npm the same packages and scopes', async () => {
    const npm = signature(await inventoryOf(filesOf('small', 'npm3')));
    for (const tool of ['pnpm7', 'pnpm8', 'pnpm9', 'bun']) {
      expect(signature(await inventoryOf(filesOf('small', tool))), tool).toEqual(npm);
    }
  });

  it('derives dev and optional for yarn, pnpm 9 and bun exactly as npm records them', async () => {
    for (const scenario of ['peers', 'workspaces']) {
      const npm = packagesOf(await inventoryOf(filesOf(scenario, 'npm3')));
      const flags = (list: Occurrence[]) => new Set(list.map((o) => `${o.name}@${o.version ?? ''} ${o.dev} ${o.optional}`));
      for (const tool of ['pnpm9', 'bun', 'yarn1', 'yarn4']) {
        const other = packagesOf(await inventoryOf(filesOf(scenario, tool)));
        const npmFlags = flags(npm);
        // yarn may hold more entries (separate ranges, injected node-gyp); every shared package agrees.
        for (const line of flags(other)) {
          const [id] = line.split(' ');
          const npmLine = [...npmFlags].find((l) => l.startsWith(`${id ?? ''} `));
          if (npmLine) expect(line, `${scenario}/${tool}`).toBe(npmLine);
        }
      }
    }
  });
});

describe('scopes', () => {
  it('marks dev, optional and platform-optional packages', async () => {
    const small = await inventoryOf(filesOf('small', 'npm3'));
    expect(byName(small, 'typescript')[0]).toMatchObject({ dev: true, optional: false });
    expect(byName(small, 'fsevents')[0]).toMatchObject({ optional: true, dev: false });
    expect(byName(small, 'express')[0]).toMatchObject({ dev: false, optional: false });
    const peers = await inventoryOf(filesOf('peers', 'pnpm9'));
    const platform = peers.occurrences.filter((o) => o.name.startsWith('@esbuild/'));
    expect(platform.length).toBeGreaterThan(20);
    expect(platform.every((o) => o.optional && !o.dev)).toBe(true);
    expect(platform.find((o) => o.name === '@esbuild/linux-x64')?.facts).toMatchObject({ os: 'linux', cpu: 'x64' });
    expect(byName(peers, '@types/react')[0]).toMatchObject({ dev: true });
  });
});

describe('aliases', () => {
  it.each(['npm1', 'npm3', 'yarn1', 'yarn4', 'pnpm7', 'pnpm8', 'pnpm9', 'bun'])('keeps my-lodash as lodash with the alias (%s)', async (tool) => {
    const inv = await inventoryOf(filesOf('small', tool));
    const lodash = byName(inv, 'lodash');
    expect(lodash).toHaveLength(1);
    expect(lodash[0]).toMatchObject({ version: '4.17.21', alias: 'my-lodash' });
    const root = inv.occurrences.find((o) => o.ref === inv.roots[0]);
    expect(root?.dependencies.map((e) => e.ref)).toContain(lodash[0]?.ref);
  });
});

describe('workspaces', () => {
  it.each(['npm3', 'yarn1', 'yarn4', 'pnpm8', 'pnpm9', 'bun'])('lists members as project roots with their edges (%s)', async (tool) => {
    const inv = await inventoryOf(filesOf('workspaces', tool));
    const roots = inv.occurrences.filter((o) => inv.roots.includes(o.ref));
    expect(roots.map((o) => `${o.name}@${o.version ?? ''}`).sort()).toEqual(['@fx/a@1.2.0', '@fx/b@2.0.1', 'fx-monorepo@0.0.0']);
    expect(inv.associations.map((a) => `${a.role}:${a.manifest}:${a.lockfile ?? ''}`).sort()).toEqual(
      ['root:package.json', 'workspace:packages/a/package.json', 'workspace:packages/b/package.json'].map(
        (s) => `${s}:${inv.lockfiles[0]?.path ?? ''}`,
      ),
    );
    const a = roots.find((o) => o.name === '@fx/a')!;
    const b = roots.find((o) => o.name === '@fx/b')!;
    const target = (from: Occurrence, name: string) =>
      inv.occurrences.find((o) => from.dependencies.some((e) => e.ref === o.ref) && o.name === name);
    // Each member's debug is the exact copy it resolves to: 4.x for a, 2.x for b.
    expect(target(a, '@fx/b')).toBe(b);
    expect(target(a, 'debug')?.version).toBe('4.4.3');
    expect(target(b, 'debug')?.version).toBe('2.6.9');
    expect(target(target(b, 'debug')!, 'ms')?.version).toBe('2.0.0');
    expect(target(target(a, 'debug')!, 'ms')?.version).toBe('2.1.3');
    expect(byName(inv, 'react')[0]).toMatchObject({ dev: true });
  });
});

describe('edges', () => {
  it('points each dependency at the exact occurrence it resolves to, with its kind', async () => {
    const inv = await inventoryOf(filesOf('small', 'npm3'));
    const root = inv.occurrences.find((o) => o.ref === inv.roots[0])!;
    const kinds: Record<string, string> = {};
    for (const e of root.dependencies) kinds[inv.occurrences.find((o) => o.ref === e.ref)?.name ?? '?'] = e.kind;
    expect(kinds).toMatchObject({ express: 'prod', typescript: 'dev', fsevents: 'optional', lodash: 'prod' });
    const express = byName(inv, 'express')[0]!;
    const deps = express.dependencies.map((e) => inv.occurrences.find((o) => o.ref === e.ref)?.installPath);
    expect(deps).toContain('node_modules/body-parser');
    expect(deps).toContain('node_modules/debug');
  });
});

describe('inconsistent trees', () => {
  it('reports peer ranges the tree does not satisfy, without failing', async () => {
    const inv = await inventoryOf(filesOf('legacy', 'npm3'));
    expect(byName(inv, 'react')[0]?.version).toBe('17.0.2');
    expect(inv.notices).toContain('react-dom@18.3.1 declares react@^18.3.1 (peer) but the lockfile gives 17.0.2');
    expect(inv.occurrences).toHaveLength(10);
  });

  it('reports what a lockfile misses and keeps the declaration unresolved', async () => {
    type Deps = { dependencies: Record<string, string> };
    const files = filesOf('small', 'npm3').map((f) => {
      if (f.path === 'package.json') {
        const manifest = JSON.parse(f.content) as Deps;
        manifest.dependencies['ghost'] = '^1.0.0';
        return { ...f, content: JSON.stringify(manifest) };
      }
      if (f.path === 'package-lock.json') {
        const lock = JSON.parse(f.content) as { packages: Record<string, Deps> };
        lock.packages['']!.dependencies['ghost'] = '^1.0.0';
        return { ...f, content: JSON.stringify(lock) };
      }
      return f;
    });
    const inv = await inventoryOf(files);
    expect(inv.declarations).toContainEqual({ manifest: 'package.json', name: 'ghost', range: '^1.0.0', kind: 'dependencies' });
    expect(inv.notices.some((n) => n.includes('requires ghost'))).toBe(true);
    expect(byName(inv, 'ghost')).toHaveLength(0);
  });
});

describe('multi-document pnpm-lock.yaml', () => {
  it('reads every document: the env document’s config dependencies are components too', async () => {
    const inv = await inventoryOf(filesOf('multidoc', 'pnpm12'));
    const names = packagesOf(inv).map((o) => o.name).sort();
    expect(names).toEqual(['is-number', 'left-pad', 'ms']);
    expect(byName(inv, 'is-number')[0]).toMatchObject({ dev: true, facts: { 'pnpm-env': 'true' } });
    expect(byName(inv, 'left-pad')[0]).toMatchObject({ dev: false });
  });
});

describe('detection', () => {
  it('recognises lockfiles by content under other names', async () => {
    const renamed = filesOf('small', 'npm3').map((f) => (f.path === 'package-lock.json' ? { ...f, path: 'deps/lock.json' } : f));
    const pnpm = filesOf('small', 'pnpm9').find((f) => f.path === 'pnpm-lock.yaml')!;
    const yarn = filesOf('small', 'yarn1').find((f) => f.path === 'yarn.lock')!;
    const bun = filesOf('small', 'bun').find((f) => f.path === 'bun.lock')!;
    const { files } = detect([...renamed, { ...pnpm, path: 'a.yaml' }, { ...yarn, path: 'b.txt' }, { ...bun, path: 'c.jsonc' }]);
    expect(files.map((f) => `${f.path}:${f.kind}`).sort()).toEqual([
      'a.yaml:pnpm-lock',
      'b.txt:yarn-lock',
      'c.jsonc:bun-lock',
      'deps/lock.json:npm-lock',
      'package.json:package-json',
    ]);
  });

  it('names unreadable lockfiles instead of guessing', async () => {
    const inv = await inventoryOf([
      { path: 'bun.lockb', content: 'binary' },
      { path: 'yarn.lock', content: 'nonsense' },
      { path: 'package.json', content: '{"name":"x","version":"1.0.0"}' },
    ]);
    expect(inv.notices.join('\n')).toMatch(/bun\.lockb.*text bun\.lock/);
    expect(inv.notices.join('\n')).toMatch(/yarn\.lock: not a readable yarn\.lock/);
  });
});
