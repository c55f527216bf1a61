import { describe, expect, it } from 'vitest';
import { detect } from '../../src/ecosystems/npm/detect.js';
import { buildInventory } from '../../src/ecosystems/npm/build.js';
import type { InputFile } from '../../src/model/types.js';
import { chainNpm, highDegreeNpm, manyPeersYarn, nestedBun, wideRootPnpm } from '../helpers/hostile-inputs.js';
import { fastestOf5, leastOf3 } from '../helpers/ecosystem-fixtures.js';

/**
 * Growth, not speed: each parser (with its graph steps) reads inputs of size n and 8n, and the
 * time ratio must stay well below the 64 a quadratic step gives. Each size takes the least CPU time
 * of five runs, each after a full collection (cpuTime: the time other processes take is not counted,
 * nor what an earlier run left for the collector), so a busy machine does not fail it. The chain starts
 * at 3,000 entries: at 1,500 a run takes 11 ms and one collection more or less swung the ratio from 9
 * to 17. Measured: the linear parsers stay under 9.5; the
 * quadratic steps this replaced gave 37 (a 9,600-dependency root) and 22 (yarn peers).
 */

const RATIO_BOUND = 14;

async function parseOnce(files: readonly InputFile[]): Promise<void> {
  const inventory = await buildInventory(
    detect(files),
    () => Promise.reject(new Error('no resolution in this test')),
    () => undefined,
  );
  expect(inventory.occurrences.length).toBeGreaterThan(0);
}

async function growth(make: (n: number) => InputFile[], n: number): Promise<number> {
  await parseOnce(make(n)); // warm the JIT before measuring
  const [small, large] = [make(n), make(8 * n)];
  return leastOf3(RATIO_BOUND, async () => (await fastestOf5(() => parseOnce(large))) / Math.max(await fastestOf5(() => parseOnce(small)), 1));
}

describe('parsers grow linearly with their input', () => {
  it('package-lock.json: a long dependency chain', async () => {
    expect(await growth((n) => [chainNpm(n)], 3_000)).toBeLessThan(RATIO_BOUND);
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
