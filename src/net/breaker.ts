import { RegistryUnreachableError } from '../model/registry-unreachable.js';

/**
 * Per-host circuit breakers for registry requests. A host that could not be connected to a few
 * times in a row (no success in between) is "open" for a cool-down: every request to it, waiting
 * or in flight, fails at once with `RegistryUnreachableError`, instead of each one spending its
 * own connect timeout and retry. After the cool-down one request goes through as a trial; the
 * others wait for its outcome: a response closes the breaker, a connection failure opens it again.
 *
 * Only failures to connect count (DNS, refused, unroutable, connect timeout): a host that answers,
 * even with a 500 or slowly, is reachable.
 */

export interface HostBreakerOptions {
  /** Consecutive connection failures to one host that open its breaker. */
  readonly threshold?: number;
  /** How long an open breaker fails its host's requests at once. */
  readonly coolDownMs?: number;
  /** The clock (tests move it instead of waiting). */
  readonly now?: () => number;
}

export const BREAKER_DEFAULTS = { threshold: 3, coolDownMs: 30_000 } as const;

/** Codes of a connection that was never made: the name does not resolve, the host refuses or cannot be routed to, the connect timed out. */
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The code of a connection failure (also inside Node's AggregateError of dual-stack attempts), or null for any other error. */
export function connectFailureCode(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e !== null && typeof e === 'object' && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECT_FAILURES.has(code)) return code;
    e = e instanceof AggregateError && e.errors.length > 0 ? e.errors[0] : (e as { cause?: unknown }).cause;
  }
  return null;
}

/** One request's passage through its host's breaker: report how it went, then leave. */
export interface HostPass {
  /** The host answered (any status): it is reachable. */
  reached(): void;
  /** The connection could not be made: counts toward opening; the error to fail the request with. */
  unreachable(code: string, cause: unknown): RegistryUnreachableError;
  /** The request ended (always called once, whatever the outcome). */
  leave(): void;
}

interface HostState {
  failures: number;
  /** Epoch ms until which requests fail at once; 0 while closed. */
  openUntil: number;
  reason: string;
  /** The failure that opened the breaker: the cause of each failure it answers with. */
  cause: unknown;
  /** The trial request after a cool-down, while it runs: the others wait for it. */
  trial: Promise<void> | null;
  endTrial: (() => void) | null;
  /** How to stop each request in flight to this host (the breaker opening stops them all). */
  readonly inflight: Set<(error: Error) => void>;
}

export class HostBreakers {
  private readonly hosts = new Map<string, HostState>();
  private readonly threshold: number;
  private readonly coolDownMs: number;
  private readonly now: () => number;

  constructor(options: HostBreakerOptions = {}) {
    this.threshold = Math.max(1, options.threshold ?? BREAKER_DEFAULTS.threshold);
    this.coolDownMs = options.coolDownMs ?? BREAKER_DEFAULTS.coolDownMs;
    this.now = options.now ?? Date.now;
  }

  /** Origins whose breaker is open now, with the failure that opened it. */
  open(): { origin: string; reason: string }[] {
    const now = this.now();
    return [...this.hosts].filter(([, s]) => s.openUntil > now).map(([origin, s]) => ({ origin, reason: s.reason }));
  }

  /**
   * Lets a request to `origin` go, or fails it at once while the host's breaker is open. `stop`
   * ends the request if the breaker opens while it is in flight.
   */
  async enter(origin: string, stop: (error: Error) => void, signal?: AbortSignal): Promise<HostPass> {
    for (;;) {
      signal?.throwIfAborted();
      const state = this.hosts.get(origin);
      if (state === undefined || state.openUntil === 0) return this.pass(origin, state ?? this.stateOf(origin), stop, false);
      if (state.trial !== null) {
        await waitOrAbort(state.trial, signal);
        continue;
      }
      if (this.now() < state.openUntil) throw new RegistryUnreachableError(origin, state.reason, true, { cause: state.cause });
      // The cool-down is over: this request is the trial.
      state.trial = new Promise<void>((resolve) => (state.endTrial = resolve));
      return this.pass(origin, state, stop, true);
    }
  }

  private stateOf(origin: string): HostState {
    let state = this.hosts.get(origin);
    if (state === undefined) {
      state = { failures: 0, openUntil: 0, reason: '', cause: undefined, trial: null, endTrial: null, inflight: new Set() };
      this.hosts.set(origin, state);
    }
    return state;
  }

  private pass(origin: string, state: HostState, stop: (error: Error) => void, trial: boolean): HostPass {
    state.inflight.add(stop);
    let left = false;
    const endTrial = (): void => {
      if (!trial || state.endTrial === null) return;
      const end = state.endTrial;
      state.trial = null;
      state.endTrial = null;
      end();
    };
    return {
      reached: () => {
        state.failures = 0;
        state.openUntil = 0;
        endTrial();
      },
      unreachable: (code, cause) => {
        state.failures++;
        state.reason = code;
        state.cause = cause;
        if (trial || (state.openUntil === 0 && state.failures >= this.threshold)) this.trip(origin, state, stop);
        endTrial();
        return new RegistryUnreachableError(origin, code, false, { cause });
      },
      leave: () => {
        if (left) return;
        left = true;
        state.inflight.delete(stop);
        // A trial that ended otherwise (a deadline, the caller's abort) hands the trial to the next request.
        endTrial();
        if (state.openUntil === 0 && state.failures === 0 && state.inflight.size === 0 && state.trial === null) this.hosts.delete(origin);
      },
    };
  }

  /** Opens the breaker and stops every other request in flight to the host. */
  private trip(origin: string, state: HostState, except: (error: Error) => void): void {
    state.openUntil = this.now() + this.coolDownMs;
    for (const stop of [...state.inflight]) if (stop !== except) stop(new RegistryUnreachableError(origin, state.reason, true, { cause: state.cause }));
  }
}

function waitOrAbort(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
