import type { FailureCode, OutputFormat, ProgressCounts } from '../model/types.js';

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];

export const JOB_PHASES = ['queued', 'resolving', 'enriching', 'rendering', 'succeeded', 'failed'] as const;
export type JobPhase = (typeof JOB_PHASES)[number];

/** The complete public projection of a job; each one fully replaces the previous. */
export interface JobSnapshot {
  readonly id: string;
  readonly kind: 'sbom';
  readonly format: OutputFormat;
  readonly state: JobState;
  readonly phase: JobPhase;
  readonly attempt: number;
  readonly revision: number;
  readonly counts: ProgressCounts;
  readonly error: FailureCode | null;
  readonly expires_at: string;
  readonly result_url: string;
}

export const JOBS_PATH = '/v1/experimental/lockfile-jobs';

export function jobLocation(id: string): string {
  return `${JOBS_PATH}/${id}`;
}

export function resultUrl(id: string): string {
  return `${JOBS_PATH}/${id}/result`;
}

export function isTerminal(state: JobState): boolean {
  return state === 'succeeded' || state === 'failed';
}

/** Which phases go with which state; tests check every snapshot against this. */
export const PHASES_OF_STATE: Readonly<Record<JobState, readonly JobPhase[]>> = {
  queued: ['queued'],
  running: ['resolving', 'enriching', 'rendering'],
  succeeded: ['succeeded'],
  failed: ['failed'],
};

export interface JobRowView {
  readonly id: string;
  readonly format: string;
  readonly state: string;
  readonly phase: string;
  readonly attempt: number;
  readonly revision: number;
  readonly counts: ProgressCounts;
  readonly error: string | null;
  readonly expiresAt: Date;
}

export function toSnapshot(row: JobRowView): JobSnapshot {
  return {
    id: row.id,
    kind: 'sbom',
    format: row.format as OutputFormat,
    state: row.state as JobState,
    phase: row.phase as JobPhase,
    attempt: row.attempt,
    revision: row.revision,
    counts: row.counts,
    error: row.error as FailureCode | null,
    expires_at: row.expiresAt.toISOString(),
    result_url: resultUrl(row.id),
  };
}
