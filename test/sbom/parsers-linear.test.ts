import { describe, expect, it } from 'vitest';
import { detect } from '../../src/sbom/ecosystems/npm/detect.js';
import { buildInventory } from '../../src/sbom/ecosystems/npm/build.js';
import type { InputFile } from '../../src/sbom/types.js';
import { chainNpm, highDegreeNpm, manyPeersYarn, nestedBun, wideRootPnpm } from '../helpers/hostile-inputs.js';
import { leastOf3 } from '../helpers/ecosystem-fixtures.js';

/**
 * Growth, not speed: each parser (with its graph steps) reads inputs of size n and 8n, and the
 * time ratio must stay well below the 64 a quadratic step gives. Each size takes the fastest of
 * five runs so a busy machine does not fail it. Measured: the linear parsers stay under 9.5; the
 * quadratic steps this replaced gave 37 (a 9,600-dependency root) and 22 (yarn peers).
 */

const RATIO_BOUND = 14;

async function parseOnce(files: readonly InputFile[]): Promise<number> {
  const started = performance.now();
  const inventory = await buildInventory(
    detect(files),
    () => Promise.reject(new Error('no resolution in this test')),
    () => undefined,
  );
  const elapsed = performance.now() - started;
  expect(inventory.occurrences.length).toBeGreaterThan(0);
  return elapsed;
}

async function fastest(files: readonly InputFile[]): Promise<number> {
  let best = Infinity;
  for (let run = 0; run < 5; run++) best = Math.min(best, await parseOnce(files));
  return best;
}

async function growth(make: (n: number) => InputFile[], n: number): Promise<number> {
  await parseOnce(make(n)); // warm the JIT before measuring
  return leastOf3(RATIO_BOUND, async () => (await fastest(make(8 * n))) / Math.max(await fastest(make(n)), 1));
}

describe('parsers grow linearly with their input', () => {
  it('package-lock.json: a long dependency chain', async () => {
    expect(await growth((n) => [chainNpm(n)], 1_500)).toBeLessThan(RATIO_BOUND);
  });

  it('package-lock.json: a root of high degree', async () => {
    expect(await growth((n) => [highDegreeNpm(n)], 1_200)).toBeLessThan(RATIO_BOUND);
  });

  it('bun.lock: nested keys', async () => {
    expect(await growth((n) => [nestedBun(n)], 400)).toBeLessThan(RATIO_BOUND);
  });

  it('yarn.lock: entries with peers', async () => {
    expect(await growth((n) => [manyPeersYarn(n)], 800)).toBeLessThan(RATIO_BOUND);
  });

  it('pnpm-lock.yaml: a wide root importer with its manifest', async () => {
    expect(await growth(wideRootPnpm, 250)).toBeLessThan(RATIO_BOUND);
  });
});
