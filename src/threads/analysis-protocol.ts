import type { Coordinate, EnrichmentResult } from '../model/enrich-types.js';
import type { StandaloneOutcome, StandaloneProject } from '../ecosystems/npm/build.js';
import type { RegistryKey } from '../ecosystems/index.js';
import type { AnalysisEnvironment } from '../model/environment.js';
import { RegistryUnreachableError } from '../model/registry-unreachable.js';
import type { AdvisorySnapshot, OsvAdvisory } from '../advisories/types.js';
import {
  AnalysisError,
  LimitExceededError,
  TransientAnalysisError,
  type AnalysisPhase,
  type AnalysisProgress,
  type AnalysisResult,
  type FailureCode,
  type FileProblem,
  type InputFile,
  type OutputFormat,
} from '../model/types.js';

/**
 * What the main thread and an analysis thread say to each other. The thread runs the whole
 * pipeline; registry access (enrichment with its shared cache and in-flight fetches, Arborist
 * resolution) stays on the main thread and is asked for over the run's port.
 */

export interface AnalysisTask {
  readonly files: readonly InputFile[];
  readonly format: OutputFormat;
  readonly maxOutputBytes: number | null;
  readonly registry: boolean;
  readonly resolver: boolean;
  readonly checkpoint: boolean;
  /** Registry base URLs the thread builds its ecosystems with; their requests go through the main thread. */
  readonly registries: Partial<Readonly<Record<RegistryKey, string>>> | null;
  readonly resolutionTimeoutMs: number | null;
  readonly mavenAllowedRepositories: readonly string[];
  /** The request's target environment (plain data: it crosses threads as is). */
  readonly environment: AnalysisEnvironment | null;
  /** The document's timestamp when the caller fixes it (tests). */
  readonly nowMs: number | null;
  /**
   * Which of the caller's enrichers this run's registry is (one per process in the service): a
   * thread keeps the metadata it was answered with per enricher, as long as each answer allows.
   */
  readonly registryId: number | null;
  /** Whether vulnerabilities were asked for: the thread's advisory lookups go through the main thread. */
  readonly advisories: boolean;
}

export type WireError =
  | { readonly kind: 'limit'; readonly code: FailureCode; readonly message: string; readonly limit: string; readonly value: number; readonly problems: readonly FileProblem[] }
  | { readonly kind: 'analysis'; readonly code: FailureCode; readonly message: string; readonly problems: readonly FileProblem[] }
  | { readonly kind: 'transient'; readonly message: string }
  | { readonly kind: 'unreachable'; readonly origin: string; readonly reason: string; readonly withoutRequest: boolean }
  | { readonly kind: 'other'; readonly name: string; readonly message: string; readonly stack: string | null; readonly code: string | null };

/** `reused`: coordinates the thread answered from its memo of earlier answers (cache hits for the caller's metrics). */
export type AnalysisOutcome = { readonly ok: true; readonly result: AnalysisResult; readonly reused: number } | { readonly ok: false; readonly error: WireError };

export type MainCall =
  | { readonly method: 'enrich'; readonly coordinates: readonly Coordinate[] }
  | { readonly method: 'resolve'; readonly project: StandaloneProject }
  | { readonly method: 'checkpoint'; readonly phase: AnalysisPhase }
  /** A registry GET of an ecosystem's resolver, answered with the body text (null: not there). */
  | { readonly method: 'http'; readonly url: string; readonly accept: string | null }
  /** The caller's AdvisoryLookup (src/advisories/types.ts), method by method. */
  | { readonly method: 'advisories'; readonly ecosystem: string; readonly names: readonly string[] }
  | { readonly method: 'advisory-snapshots' };

/**
 * `enrich` is answered with the result (its final counts included). Progress while it runs is
 * reported by the main thread itself, which has the thread's last counts: a message to the thread
 * and one back per fetched coordinate would only carry them there and back.
 */
export type CallAnswer = EnrichmentResult | StandaloneOutcome | string | null | readonly OsvAdvisory[] | readonly AdvisorySnapshot[];

/** Thread → main. */
export type ThreadMessage =
  | { readonly type: 'progress'; readonly progress: AnalysisProgress }
  | { readonly type: 'call'; readonly id: number; readonly call: MainCall };

/** Main → thread. */
export type MainMessage =
  | { readonly type: 'reply'; readonly id: number; readonly ok: true; readonly value: CallAnswer }
  | { readonly type: 'reply'; readonly id: number; readonly ok: false; readonly error: WireError };

/** Errors cross threads as data: structured cloning would drop their class and code. */
export function toWire(error: unknown): WireError {
  if (error instanceof LimitExceededError) {
    return { kind: 'limit', code: error.code, message: error.message, limit: error.limit, value: error.value, problems: error.problems };
  }
  if (error instanceof AnalysisError) return { kind: 'analysis', code: error.code, message: error.message, problems: error.problems };
  // Before the transient kind it belongs to: a resolver in a thread degrades on it rather than failing.
  if (error instanceof RegistryUnreachableError) return { kind: 'unreachable', origin: error.origin, reason: error.reason, withoutRequest: error.withoutRequest };
  if (error instanceof TransientAnalysisError) return { kind: 'transient', message: error.message };
  // The code (a SQLSTATE, ECONNRESET…) is what tells a retryable failure from a bug.
  const code = (error as { code?: unknown } | null)?.code;
  const wireCode = typeof code === 'string' ? code : null;
  if (error instanceof Error) return { kind: 'other', name: error.name, message: error.message, stack: error.stack ?? null, code: wireCode };
  return { kind: 'other', name: 'Error', message: String(error), stack: null, code: wireCode };
}

export function fromWire(error: WireError): Error {
  switch (error.kind) {
    case 'limit':
      return new LimitExceededError(error.code, { name: error.limit, value: error.value }, error.message, error.problems);
    case 'analysis':
      return new AnalysisError(error.code, error.message, { problems: error.problems });
    case 'transient':
      return new TransientAnalysisError(error.message);
    case 'unreachable':
      return new RegistryUnreachableError(error.origin, error.reason, error.withoutRequest);
    case 'other': {
      const copy: Error & { code?: string } = new Error(error.message);
      copy.name = error.name;
      if (error.stack !== null) copy.stack = error.stack;
      if (error.code !== null) copy.code = error.code;
      return copy;
    }
  }
}

export function isThreadMessage(value: unknown): value is ThreadMessage {
  const type = (value as { type?: unknown } | null)?.type;
  return type === 'progress' || type === 'call';
}

export function isMainMessage(value: unknown): value is MainMessage {
  const type = (value as { type?: unknown } | null)?.type;
  return type === 'reply';
}
