import type { JobPhase } from '../../../src/jobs/snapshot.js';
import type { CountName, FailureCode, OutputFormat } from '../../../src/model/types.js';

/**
 * What the console calls the job's phases, counts, failures and formats. Keyed by the domain's
 * own unions, so a new phase, count, failure code or format does not compile until it has a label.
 */

export const PHASE_LABELS: Readonly<Record<JobPhase, string>> = {
  queued: 'Queued',
  resolving: 'Resolving dependencies',
  enriching: 'Enriching with registry metadata',
  rendering: 'Rendering the document',
  succeeded: 'Succeeded',
  failed: 'Failed',
};

export const COUNT_LABELS: Readonly<Record<CountName, string>> = {
  manifests_total: 'Manifests',
  manifests_done: 'Manifests resolved',
  resolved: 'Packages found',
  coordinates_total: 'Registry lookups',
  coordinates_done: 'Registry lookups done',
  fetched: 'Fetched from the registry',
  cached: 'From the metadata cache',
  fetch_failed: 'Lookups failed',
  queued_packages: 'Packages waiting',
};

export const FAILURE_LABELS: Readonly<Record<FailureCode, string>> = {
  resolution_timeout: 'Resolving the dependencies took too long.',
  resolution_failed: 'The dependencies could not be resolved.',
  output_too_large: 'The document would be larger than the service allows.',
  unrepresentable_spdx: 'The inventory cannot be expressed as SPDX 2.3; try CycloneDX.',
  parser_contract_changed: 'The service was upgraded while the job waited; submit it again.',
  execution_failed: 'The analysis failed repeatedly; try again later.',
  execution_record_unavailable: 'The uploaded files are no longer available; submit them again.',
  invalid_response: 'pkgscope wrote a document that failed its own validation: a defect of the service, not of your files or of the registry.',
  no_manifest_evidence: 'None of the uploaded files is a recognised manifest or lockfile.',
};

/** Labels and file-name endings of the formats (CycloneDX and SPDX name their JSON files so). */
export const FORMATS: Readonly<Record<OutputFormat, { readonly label: string; readonly extension: string }>> = {
  cyclonedx: { label: 'CycloneDX 1.7 (JSON)', extension: '.cdx.json' },
  spdx: { label: 'SPDX 2.3 (JSON)', extension: '.spdx.json' },
  text: { label: 'Plain text', extension: '.txt' },
};

export function labelOf<K extends string>(labels: Readonly<Record<K, string>>, key: string | null): string | null {
  return key !== null && Object.hasOwn(labels, key) ? labels[key as K] : null;
}

/** Failures that are defects of the service rather than of the upload: the console asks for a report. */
export const INTERNAL_FAILURES: ReadonlySet<string> = new Set<FailureCode>(['invalid_response']);

/** What the console says of a failure; for a defect of the service, with the id that finds its log lines. */
export function failureNotice(code: string | null, reference: { readonly kind: 'job' | 'request'; readonly id: string }): { title: string; detail: string } {
  const label = labelOf(FAILURE_LABELS, code) ?? 'The analysis failed.';
  if (code === null || !INTERNAL_FAILURES.has(code)) return { title: reference.kind === 'job' ? 'The job failed' : 'The analysis failed', detail: label };
  return { title: 'Internal error: please report it', detail: `${label} Please report it with the ${reference.kind} id ${reference.id}.` };
}
