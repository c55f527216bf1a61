import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdvisoryStore } from '../../src/advisories/store.js';
import { startWorkers } from '../../src/processes/workers.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { captureLogs } from '../helpers/logs.js';
import { startAdvisoryServer, type AdvisoryServer } from './sync-server.js';

let h: JobsHarness;
let server: AdvisoryServer;

beforeAll(async () => {
  server = await startAdvisoryServer();
  h = await startJobsHarness({ ADVISORY_DB_URL: server.url, ADVISORY_ECOSYSTEMS: 'PyPI', ADVISORY_SYNC_INTERVAL_MS: '3600000' });
});
afterAll(async () => {
  await h.close();
  await server.close();
});

describe('the maintenance schedule of the advisory sync', () => {
  it('a worker syncs at start-up and keeps a scheduler at ADVISORY_SYNC_INTERVAL_MS', async () => {
    const logs = captureLogs();
    const workers = await startWorkers({ config: h.config, database: h.database, logger: logs.logger, npmOptions: await h.registry.npmOptions() });
    try {
      await logs.waitFor((lines) => lines.some((l) => l['msg'] === 'advisories synced' && l['ecosystem'] === 'PyPI'));
      const source = (await new AdvisoryStore(h.database.db).sources()).find((s) => s.ecosystem === 'PyPI');
      expect(source).toMatchObject({ state: 'ready', advisories: 2_654 });
      const scheduler = await h.services.maintenanceQueue.getJobScheduler('advisories');
      expect(Number(scheduler?.every)).toBe(3_600_000);
      // Fetched from the configured database (not OSV's public bucket).
      expect(server.requests.filter((r) => r.path === '/PyPI/all.zip' && r.status === 200).length).toBeGreaterThanOrEqual(1);
    } finally {
      await workers.close();
    }
  }, 180_000);
});
