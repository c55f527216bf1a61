/**
 * `invalid_response` is a defect of ours and is loud: one error-level log line with the validator's
 * words, the job id (or request id) and the component at fault; a count in
 * pkgscope_invalid_documents_total; and a diagnostic naming the purl and the field for the caller
 * (the job's result problem, the synchronous 422), while the snapshot stays the spec's.
 *
 * The analysis is the product's seam for it (the workers' and the API's `analyze`): the real
 * analysis, then the real validator on its document with one member the schema refuses (the
 * renderer fits every value it knows, so no upload of today yields one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import type { Analyze } from '../../src/jobs/runner.js';
import { JOBS_PATH, type JobSnapshot } from '../../src/jobs/snapshot.js';
import { apiAppDeps } from '../../src/processes/routes.js';
import { analyze } from '../../src/sbom/analyze.js';
import { validateCycloneDx } from '../../src/sbom/validate/cyclonedx.js';
import { INVALID_DOCUMENT_LOG } from '../../src/sbom/validate/defects.js';
import { validateSpdx } from '../../src/sbom/validate/spdx.js';
import { startWorkers } from '../../src/processes/workers.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { captureLogs } from '../helpers/logs.js';

const PURL = 'pkg:npm/accepts@1.3.8';
/** A line of the uploaded lockfile (the integrity of `accepts`): no log line may carry it. */
const UPLOADED_TEXT = 'PYAthTa2m2VKxuvSD3DPC';

type Named = { name: string } & Record<string, unknown>;

/** The real analysis, then the real validator on its document with one defect put in. */
const withDefect: Analyze = async (files, format, deps) => {
  const result = await analyze(files, format, deps);
  const document = JSON.parse(result.document) as { components?: Named[]; packages?: Named[] };
  if (format === 'cyclonedx') {
    const accepts = document.components?.find((c) => c.name === 'accepts');
    if (accepts) accepts['authors'] = [{ name: 'Jane', email: 'jane at example' }];
    validateCycloneDx(JSON.stringify(document));
  } else if (format === 'spdx') {
    const accepts = document.packages?.find((p) => p.name === 'accepts');
    if (accepts) accepts['supplier'] = 'somebody';
    validateSpdx(JSON.stringify(document));
  }
  return result;
};

let h: JobsHarness;
let token: string;

beforeAll(async () => {
  h = await startJobsHarness();
  token = await h.token('defects');
});
afterAll(() => h.close());

const auth = (): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** The series of the counter for `format`, as the scrape writes it. */
function invalidDocuments(scrape: string, format: string, process: string): number | null {
  const line = scrape.split('\n').find((l) => l.startsWith(`pkgscope_invalid_documents_total{format="${format}",process="${process}"} `));
  return line === undefined ? null : Number(line.split(' ').at(-1));
}

describe('a job whose document fails our own validation', () => {
  it('fails with invalid_response, logs one error line with the job id and purl, counts it, and names the purl and field in the result problem', async () => {
    const logs = captureLogs();
    const workers = await startWorkers({ config: h.config, database: h.database, logger: logs.logger, npmOptions: await h.registry.npmOptions(), analyze: withDefect });
    try {
      const submitted = await h.app.inject({ method: 'POST', url: JOBS_PATH, headers: auth(), payload: { format: 'cyclonedx', files: SMALL_NPM() } });
      expect(submitted.statusCode).toBe(202);
      const id = submitted.json<JobSnapshot>().id;
      // The runner's last line of the attempt, whichever way it ended.
      await logs.waitFor((lines) => lines.some((l) => l['jobId'] === id && typeof l['msg'] === 'string' && /^job (failed|succeeded)/.test(l['msg'])));

      const errors = logs.lines().filter((l) => l['level'] === 50);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        jobId: id,
        msg: INVALID_DOCUMENT_LOG,
        format: 'cyclonedx',
        error: 'invalid_response',
        validation: expect.stringMatching(/^CycloneDX validation failed: \/components\/\d+\/authors\/0\/email must match format "idn-email"/) as unknown,
        defects: [{ package: PURL, field: 'authors[0].email', file: 'package-lock.json', problem: expect.stringContaining(`component ${PURL}, field authors[0].email`) as unknown }],
      });
      expect(logs.text()).not.toContain(UPLOADED_TEXT);
      const scrape = await workers.metrics.scrape();
      expect(invalidDocuments(scrape, 'cyclonedx', 'worker')).toBe(1);
      expect(invalidDocuments(scrape, 'spdx', 'worker')).toBe(0);
      expect(scrape).toContain('pkgscope_jobs_finished_total{outcome="failed",code="invalid_response",process="worker"} 1');

      // The snapshot is the spec's: the code, no diagnostics.
      const status = await h.app.inject({ method: 'GET', url: `${JOBS_PATH}/${id}`, headers: auth() });
      const snapshot = status.json<JobSnapshot>();
      expect(snapshot).toMatchObject({ state: 'failed', phase: 'failed', error: 'invalid_response' });
      expect(Object.keys(snapshot).sort()).toEqual(['attempt', 'counts', 'error', 'expires_at', 'format', 'id', 'kind', 'phase', 'result_url', 'revision', 'state']);

      const result = await h.app.inject({ method: 'GET', url: `${JOBS_PATH}/${id}/result`, headers: auth() });
      expect(result.statusCode).toBe(409);
      expect(result.json()).toMatchObject({
        code: 'ANALYSIS_FAILED',
        failure_code: 'invalid_response',
        diagnostics: [
          {
            path: 'package-lock.json',
            reason: 'invalid_document',
            package: PURL,
            line: null,
            column: null,
            message: expect.stringMatching(/^component pkg:npm\/accepts@1\.3\.8, field authors\[0\]\.email: is not an email address \(.*please report it\)$/) as unknown,
          },
        ],
      });
    } finally {
      await workers.close();
    }
  });
});

describe('the synchronous endpoint when the document fails our own validation', () => {
  it('answers 422 invalid_response naming the purl and field, logs one error line with the request id, and counts it', async () => {
    const logs = captureLogs();
    const app = await buildApp(apiAppDeps(h.config, h.database, { ...h.services, analyze: withDefect }, logs.logger));
    try {
      const before = invalidDocuments(await h.services.metrics.scrape(), 'spdx', 'api');
      expect(before).toBe(0);
      const res = await app.inject({ method: 'POST', url: '/v1/experimental/sbom', headers: auth(), payload: { format: 'spdx', files: SMALL_NPM() } });
      expect(res.statusCode).toBe(422);
      const requestId = res.headers['x-request-id'];
      expect(res.json()).toMatchObject({
        code: 'ANALYSIS_FAILED',
        status: 422,
        instance: requestId,
        failure_code: 'invalid_response',
        diagnostics: [
          {
            path: 'package-lock.json',
            reason: 'invalid_document',
            package: PURL,
            message: expect.stringMatching(/^component pkg:npm\/accepts@1\.3\.8, field supplier: does not have the form the schema requires/) as unknown,
          },
        ],
      });

      const errors = logs.lines().filter((l) => l['level'] === 50);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        reqId: requestId,
        msg: INVALID_DOCUMENT_LOG,
        format: 'spdx',
        error: 'invalid_response',
        validation: expect.stringMatching(/^SPDX schema: \/packages\/\d+\/supplier must match pattern/) as unknown,
        defects: [{ package: PURL, field: 'supplier', file: 'package-lock.json' }],
      });
      expect(logs.text()).not.toContain(UPLOADED_TEXT);
      expect(invalidDocuments(await h.services.metrics.scrape(), 'spdx', 'api')).toBe(1);
    } finally {
      await app.close();
    }
  });
});
