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

/**
 * Why one uploaded file could not be used (a stable code clients may branch on):
 * - `not_recognised`: no ecosystem claims it; `malformed` / `syntax`: recognised but unreadable;
 *   `unexpected_structure`: parses, but not into the shape its format has; `unsupported_version`;
 *   `unresolvable`: a requirement the registry cannot satisfy (`package` names it);
 * - limits (with `limit`): `limit_exceeded`, `too_deep`, `too_many_entries`, `too_many_edges`,
 *   `too_many_path_segments`, `key_too_long`, `line_too_long`, `too_many_aliases`,
 *   `analysis_time_limit`, `analysis_memory_limit`;
 * - `invalid_document` (with `invalid_response`): not the file's fault but the service's: the
 *   document it wrote from the file's package broke its own validation (`path` is the file the
 *   package came from, `(document)` when the fault lies in no package; `field` says where).
 */
export type FileProblemReason = string;

/** One thing wrong with one uploaded file, in the caller's terms (no stack, no internal URL). */
export interface FileProblem {
  readonly path: string;
  readonly reason: FileProblemReason;
  /** Said in words; when absent, the reason's own description stands for it. */
  readonly message?: string;
  /** 1-based position in the file, when known. */
  readonly line?: number;
  readonly column?: number;
  /** The lockfile entry or package it concerns, when there is one. */
  readonly package?: string;
  /** The bound that was exceeded, for the limit reasons. */
  readonly limit?: number;
  /**
   * For `invalid_document` (a written document its own validation rejected: `invalid_response`):
   * the member at fault within the package's component, e.g. `authors[0].email`.
   */
  readonly field?: string;
}

export interface AnalysisErrorOptions extends ErrorOptions {
  /** What was wrong, per input file (the diagnostics callers see beside the failure code). */
  readonly problems?: readonly FileProblem[];
}

/** A deterministic failure: retrying the same input gives the same outcome. */
export class AnalysisError extends Error {
  readonly code: FailureCode;
  /** The files that caused it, when the failure is about particular files. */
  readonly problems: readonly FileProblem[];
  constructor(code: FailureCode, message: string = code, options?: AnalysisErrorOptions) {
    super(message, options);
    this.name = 'AnalysisError';
    this.code = code;
    this.problems = options?.problems ?? [];
  }
}

/**
 * An input exceeded one of the documented structural or resource limits: the analysis fails as
 * a whole (it is never skipped like a merely unreadable file), naming the file and the limit.
 */
export class LimitExceededError extends AnalysisError {
  /** The limit's documented name (an input limit, or the setting of a resource budget). */
  readonly limit: string;
  readonly value: number;
  constructor(code: FailureCode, limit: { name: string; value: number }, message: string, problems: readonly FileProblem[] = []) {
    super(code, message, { problems });
    this.name = 'LimitExceededError';
    this.limit = limit.name;
    this.value = limit.value;
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
  /** Input files the analysis could not use, or used only in part (diagnostics). */
  readonly problems?: readonly FileProblem[];
}

/** Largest result document the service stores or returns (the spec's 16 MiB). */
export const MAX_OUTPUT_BYTES = 16_777_216;
