import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/ (docs/code-map.md): a file imports only from its own layer or lower ones,
 * type-only imports included. Each top-level folder or file of src/ has a rank; a folder or file
 * not in the table fails the test, so a new one is placed on purpose.
 */
const RANK: Readonly<Record<string, number>> = {
  // Leaves: no import of src/ beyond each other (src/types holds declaration files only).
  version: 1,
  logger: 1,
  'log-levels': 1,
  'config-env': 1,
  'store-errors': 1,
  unreachable: 1,
  'outage-log': 1,
  errors: 1,
  // The package vocabulary every ecosystem speaks (pure).
  model: 2,
  // Infrastructure: the HTTP stack, archives, child processes, Redis connections.
  net: 3,
  archives: 3,
  system: 3,
  redis: 3,
  // One folder per ecosystem.
  ecosystems: 4,
  // Domain services.
  db: 5,
  accounts: 5,
  sbom: 5,
  inventory: 5,
  jobs: 5,
  advisories: 5,
  // Package inspection: registry facts, advisories and changelogs of one package.
  packages: 5,
  // Worker-thread pools and their entry points.
  threads: 6,
  // Delivery: HTTP, routes with their wire schemas and request services, operations endpoints.
  http: 7,
  routes: 7,
  ops: 7,
  // Composition roots: the processes, the CLI and its commands, configuration from the environment.
  processes: 8,
  commands: 8,
  cli: 8,
  config: 8,
};

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|cts|mts)$/.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.d.cts') ? [path] : [];
  });
}

/** The top-level folder or file (without extension) of src/ a path is in. */
function unitOf(path: string): string {
  const [first = '', second] = relative(SRC, path).split('/');
  return second === undefined ? first.replace(/\.(ts|cts|mts|js|cjs|mjs)$/, '') : first;
}

/** Every relative import of every source file: static, type-only, dynamic and require. */
function imports(): { from: string; to: string; file: string; spec: string }[] {
  return sources(SRC).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].flatMap((m) => {
      const spec = m[1] ?? '';
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(`${SRC}/`)) return [];
      return [{ from: unitOf(file), to: unitOf(target), file: relative(SRC, file), spec }];
    });
  });
}

describe('the layers of src/', () => {
  const all = imports();

  it('ranks every top-level folder and file of src/', () => {
    const units = new Set(sources(SRC).map(unitOf));
    expect([...units].filter((u) => RANK[u] === undefined)).toEqual([]);
    // The table names nothing that is gone.
    expect(Object.keys(RANK).filter((u) => !units.has(u))).toEqual([]);
  });

  it('has no import from a lower layer upward', () => {
    const upward = all.filter((i) => i.from !== i.to && i.to !== 'types' && (RANK[i.to] ?? 0) > (RANK[i.from] ?? 0)).map((i) => `${i.file} imports ${i.spec} (${i.from} ${RANK[i.from]} → ${i.to} ${RANK[i.to]})`);
    expect(upward).toEqual([]);
  });

  it('reads imports of every form (the check itself can fail)', () => {
    expect(all.length).toBeGreaterThan(500);
    expect(all.some((i) => i.from === 'processes' && i.to === 'routes')).toBe(true);
  });
});
