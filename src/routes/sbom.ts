import multipart from '@fastify/multipart';
import type { App, RoutePlugin } from '../http/app.js';
import { ProblemError } from '../http/problems.js';
import type { AdvisoryLookup } from '../advisories/types.js';
import type { AnalyzeDeps } from '../sbom/analyze.js';
import type { Analyze, DefectObserver } from '../jobs/runner.js';
import { AnalysisError, LimitExceededError, TransientAnalysisError } from '../model/types.js';
import { INVALID_DOCUMENT_LOG, invalidDocumentLog } from '../sbom/validate/defects.js';
import { diagnosticsOf } from './diagnostics.js';
import { DOCUMENT_CONTENT, MULTIPART_OPTIONS, readUpload, UPLOAD_BODY_LIMIT, uploadBodySchema } from './upload.js';
import { AUTHENTICATED_PROBLEMS, problemResponses } from '../http/openapi.js';

export interface SbomRouteDeps {
  readonly config: { readonly sbomSyncTimeoutMs: number };
  readonly analyze: Analyze;
  readonly analysis: Omit<AnalyzeDeps, 'onProgress' | 'signal' | 'checkpoint' | 'advisories'>;
  /** Where a request asking for vulnerabilities has its components matched (the advisory mirror). */
  readonly advisories?: AdvisoryLookup;
  /** Counts documents that failed our own validation (metrics). */
  readonly observer?: DefectObserver;
}

/**
 * `POST /v1/experimental/sbom`: the same upload as a job, answered with the document itself
 * within a deadline. The analysis runs on the process's thread pool (`deps.analyze`), never on
 * the event loop, within its own time and heap budget as well as this deadline.
 */
export function sbomRoutes(deps: SbomRouteDeps): RoutePlugin {
  return async (app: App) => {
    await app.register(multipart, MULTIPART_OPTIONS);
    app.post(
      '/experimental/sbom',
      {
        bodyLimit: UPLOAD_BODY_LIMIT,
        config: { capability: 'sbom' },
        schema: {
          summary: 'Analyse manifests and lockfiles synchronously, within a deadline',
          operationId: 'analyzeLockfiles',
          tags: ['lockfile jobs'],
          body: uploadBodySchema,
          response: {
            200: { description: 'The document, in the media type of the requested format.', content: DOCUMENT_CONTENT },
            ...problemResponses(...AUTHENTICATED_PROBLEMS, 422, 503, 504),
          },
          'x-service-cost': { weight: 10, class: 'heavy' },
        },
      },
      async (request, reply) => {
        const upload = await readUpload(request);
        const deadline = AbortSignal.timeout(deps.config.sbomSyncTimeoutMs);
        const closed = new AbortController();
        request.raw.on('close', () => closed.abort());
        const signal = AbortSignal.any([deadline, closed.signal]);
        try {
          const result = await Promise.race([
            deps.analyze(upload.files, upload.format, {
              ...deps.analysis,
              environment: upload.environment,
              ...(upload.vulnerabilities && deps.advisories ? { advisories: deps.advisories } : {}),
              signal,
            }),
            new Promise<never>((_resolve, reject) => {
              const fail = (): void => reject(new DeadlineExceeded());
              if (deadline.aborted) fail();
              deadline.addEventListener('abort', fail, { once: true });
            }),
          ]);
          return await reply.header('content-type', result.mediaType).send(Buffer.from(result.document, 'utf8'));
        } catch (error) {
          if (error instanceof DeadlineExceeded || deadline.aborted) {
            throw new ProblemError('TIMEOUT', `The analysis did not finish within ${deps.config.sbomSyncTimeoutMs} ms; submit a job instead.`);
          }
          if (error instanceof LimitExceededError) {
            // The limit and the file are named so the caller knows what to shrink.
            const path = error.problems[0]?.path;
            throw new ProblemError('ANALYSIS_FAILED', 'The analysis failed; failure_code tells why.', {
              status: 422,
              extras: {
                failure_code: error.code,
                limit: error.limit,
                limit_value: error.value,
                ...(path === undefined ? {} : { path }),
                diagnostics: diagnosticsOf(error.problems),
              },
            });
          }
          if (error instanceof AnalysisError) {
            if (error.code === 'invalid_response') {
              // A defect of ours, not the caller's: logged under the request id, counted.
              deps.observer?.invalidDocument(upload.format);
              request.log.error({ format: upload.format, error: error.code, ...invalidDocumentLog(error) }, INVALID_DOCUMENT_LOG);
            }
            throw new ProblemError('ANALYSIS_FAILED', 'The analysis failed; failure_code tells why.', {
              status: 422,
              extras: { failure_code: error.code, diagnostics: diagnosticsOf(error.problems) },
            });
          }
          if (error instanceof TransientAnalysisError) {
            // A registry in trouble or a full analysis pool, never a store outage: logged as what it is.
            request.log.warn({ err: error }, 'the analysis could not run now; answered 503');
            throw new ProblemError('SERVICE_UNAVAILABLE', 'The analysis could not run now; retry later or submit a job.', {
              headers: { 'retry-after': '5' },
            });
          }
          throw error;
        }
      },
    );
  };
}

class DeadlineExceeded extends Error {}
