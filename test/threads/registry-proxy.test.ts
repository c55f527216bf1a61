import { afterAll, describe, expect, it } from 'vitest';
import { registryHttp } from '../../src/ecosystems/shared/http.js';
import { createAnalysisPool } from '../../src/threads/analysis-pool.js';
import { GREPPER_CRATES } from '../sbom/ecosystems/cargo/crates.js';
import { cargoUpload, cratesFixtures } from '../sbom/ecosystems/cargo/helpers.js';

const pool = createAnalysisPool({ threads: 1, maxQueue: 4, budgetMs: 20_000, maxHeapMb: 512 });
afterAll(() => pool.close());
const startRegistry = cratesFixtures();

describe('ecosystems in an analysis thread', () => {
  it('resolve against their configured registries through the main thread', async () => {
    const { registry } = await startRegistry({ crates: GREPPER_CRATES });
    const http = registryHttp({ timeoutMs: 5_000, retries: 0 });
    try {
      const result = await pool.analyze(cargoUpload('manifest-only'), 'cyclonedx', { registryAccess: { bases: { crates: registry.url }, http } });
      const bom = JSON.parse(result.document) as { components: { name: string; version?: string }[] };
      // The same resolution as in-process: regex 1.10.4 (1.10.5 is yanked) and its dependencies.
      expect(bom.components.map((c) => `${c.name}@${c.version ?? ''}`)).toEqual(expect.arrayContaining(['regex@1.10.4', 'memchr@2.7.2']));
      expect(registry.requests.some((path) => path.startsWith('/api/v1/crates/regex'))).toBe(true);
    } finally {
      await http.close();
    }
  });
});
