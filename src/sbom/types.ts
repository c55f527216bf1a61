/** The pure analysis pipeline's public types: what goes in, what comes out, how it fails. */

export const OUTPUT_FORMATS = ['cyclonedx', 'spdx', 'text'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const MEDIA_TYPES: Readonly<Record<OutputFormat, string>> = {
  cyclonedx: 'application/vnd.cyclonedx+json; version=1.7',
  spdx: 'application/spdx+json',
  text: 'text/plain; charset=utf-8',
};

export interface InputFile {
  readonly path: string;
  readonly content: string;
}

export const COUNT_NAMES = [
  'cached',
  'coordinates_done',
  'coordinates_total',
  'fetch_failed',
  'fetched',
  'manifests_done',
  'manifests_total',
  'queued_packages',
  'resolved',
] as const;
export type CountName = (typeof COUNT_NAMES)[number];

/** Progress counters; each is omitted until its stage supplies it. */
export type ProgressCounts = Partial<Record<CountName, number>>;

export type AnalysisPhase = 'resolving' | 'enriching' | 'rendering';

export interface AnalysisProgress {
  readonly phase: AnalysisPhase;
  readonly counts: ProgressCounts;
}

export const FAILURE_CODES = [
  'resolution_timeout',
  'resolution_failed',
  'output_too_large',
  'unrepresentable_spdx',
  'parser_contract_changed',
  'execution_failed',
  'execution_record_unavailable',
  'invalid_response',
  'no_manifest_evidence',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

/** A deterministic failure: retrying the same input gives the same outcome. */
export class AnalysisError extends Error {
  readonly code: FailureCode;
  constructor(code: FailureCode, message: string = code, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AnalysisError';
    this.code = code;
  }
}

/** A failure worth retrying later (registry 5xx, network timeouts). */
export class TransientAnalysisError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TransientAnalysisError';
  }
}

/** The document the analysis produced, serialised, with its media type. */
export interface AnalysisResult {
  readonly document: string;
  readonly mediaType: string;
  readonly byteSize: number;
  readonly counts: ProgressCounts;
}

/** Largest result document the service stores or returns (the spec's 16 MiB). */
export const MAX_OUTPUT_BYTES = 16_777_216;
