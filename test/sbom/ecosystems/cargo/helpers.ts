import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach } from 'vitest';
import { registryHttp } from '../../../../src/ecosystems/shared/http.js';
import { cargoEcosystem } from '../../../../src/ecosystems/cargo/analysis.js';
import type { ClaimedFile, Ecosystem, EcosystemInventory, RegistryEndpoint } from '../../../../src/ecosystems/types.js';
import type { Occurrence } from '../../../../src/model/model.js';
import type { InputFile } from '../../../../src/model/types.js';
import { startCratesRegistry, type CratesRegistry, type CratesRegistryOptions } from '../../../helpers/crates-registry.js';
import { FIXTURES } from '../../../helpers/fixtures.js';

export const CARGO_FIXTURES = join(FIXTURES, 'lockfiles', 'cargo');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** The files of a fixture folder as an upload (paths relative to the folder). */
export function cargoUpload(set: string): InputFile[] {
  const root = join(CARGO_FIXTURES, set);
  return walk(root)
    .sort()
    .map((p) => ({ path: relative(root, p), content: readFileSync(p, 'utf8') }));
}

export function claimAll(eco: Ecosystem, files: readonly InputFile[]): ClaimedFile[] {
  return files.flatMap((f) => {
    const claim = eco.claim(f);
    return claim === null ? [] : [{ ...f, ...claim }];
  });
}

export async function buildFiles(files: readonly InputFile[], eco: Ecosystem = cargoEcosystem(null)): Promise<EcosystemInventory> {
  return eco.build(claimAll(eco, files), { onManifestDone: () => undefined });
}

export const label = (o: Occurrence): string => `${o.name}@${o.version ?? ''}`;

/** `name@version` of every non-root occurrence in the given scope. */
export function inScope(result: EcosystemInventory, scope: 'required' | 'optional' | 'dev'): string[] {
  const roots = new Set(result.inventory.roots);
  return result.inventory.occurrences
    .filter((o) => !roots.has(o.ref))
    .filter((o) => (scope === 'dev' ? o.dev : scope === 'optional' ? !o.dev && o.optional : !o.dev && !o.optional))
    .map(label)
    .sort();
}

/** The edges of the graph as `from -> to (kind)`, labels by name@version (plus source for git). */
export function edgesOf(result: EcosystemInventory): string[] {
  const byRef = new Map(result.inventory.occurrences.map((o) => [o.ref, o]));
  const show = (o: Occurrence): string => `${label(o)}${o.source === 'git' ? ' (git)' : ''}`;
  return result.inventory.occurrences
    .flatMap((o) => o.dependencies.map((e) => {
      const to = byRef.get(e.ref);
      return `${show(o)} -> ${to === undefined ? e.ref : show(to)} (${e.kind})`;
    }))
    .sort();
}

/** `[[package]]` tables of a Cargo.lock, counted by line (independent of any TOML parser). */
export function packageHeaders(lock: string): number {
  return lock.split('\n').filter((l) => l.trim() === '[[package]]').length;
}

/**
 * Starts fixture crates.io registries with a registry HTTP client pointed at each (no retries:
 * failure tests want the failure at once); everything started is closed after each test.
 */
export function cratesFixtures(): (options?: CratesRegistryOptions, timeoutMs?: number) => Promise<{ registry: CratesRegistry; endpoint: RegistryEndpoint }> {
  const open: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of open.splice(0)) await close();
  });
  return async (options = {}, timeoutMs = 5_000) => {
    const registry = await startCratesRegistry(options);
    const http = registryHttp({ timeoutMs, retries: 0, userAgent: 'pkgscope-test (fixture)' });
    open.push(() => http.close(), () => registry.close());
    return { registry, endpoint: { base: registry.url, http } };
  };
}
