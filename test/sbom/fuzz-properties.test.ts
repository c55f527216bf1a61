import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/sbom/analyze.js';
import { AnalysisError, OUTPUT_FORMATS } from '../../src/model/types.js';
import { FORMATS, mutatedUpload } from '../fuzz/mutations.js';

/**
 * Property: whatever a mutated lockfile holds (truncation, flipped bytes, duplicated keys,
 * `__proto__`, deep nesting, alias bombs, huge numbers, long lines), the analysis answers a
 * document or a typed AnalysisError — never another exception. Seeded, so a failure replays;
 * `npm run fuzz` runs the long campaigns.
 */

const RUNS = 300;

describe('mutated lockfiles never crash the analysis', () => {
  for (const [index, format] of FORMATS.entries()) {
    it(`${format}: ${RUNS} seeded mutations answer a document or a typed failure`, async () => {
      await fc.assert(
        fc.asyncProperty(mutatedUpload(format), fc.constantFrom(...OUTPUT_FORMATS), async (files, output) => {
          try {
            const result = await analyze(files, output);
            expect(result.byteSize).toBeGreaterThan(0);
          } catch (error) {
            if (!(error instanceof AnalysisError)) throw error;
            expect(error.code).toMatch(/^[a-z_]+$/);
          }
        }),
        { numRuns: RUNS, seed: 19_000 + index, endOnFailure: true },
      );
    });
  }
});
