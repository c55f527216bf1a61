import { TransientAnalysisError } from './types.js';

/**
 * A registry host could not be connected to (its name does not resolve, it refuses, no route, the
 * connection timed out), or its circuit breaker is open after such failures. The analysis degrades
 * on it: components stay as the files record them and manifests unresolved, with a notice naming
 * the host. Never a reason to fail or retry a job: retrying meets the same firewall.
 */
export class RegistryUnreachableError extends TransientAnalysisError {
  readonly code = 'REGISTRY_UNREACHABLE';
  constructor(
    /** `scheme://host[:port]`: no path, no credentials. */
    readonly origin: string,
    /** The connection failure's code: `ECONNREFUSED`, `ENOTFOUND`, `EAI_AGAIN`, `UND_ERR_CONNECT_TIMEOUT`… */
    readonly reason: string,
    /** True when the breaker failed it (open, or opening while it was in flight), not its own attempt to connect. */
    readonly withoutRequest = false,
    options?: ErrorOptions,
  ) {
    super(`registry at ${origin} could not be reached (${reason})`, options);
    this.name = 'RegistryUnreachableError';
  }
}

/**
 * A registry request that did not end within its deadline: transient (its name stays
 * `TransientAnalysisError`, which the metrics count as such); callers tell it by type or `code`.
 */
export class RegistryTimeoutError extends TransientAnalysisError {
  readonly code = 'REGISTRY_TIMEOUT';
  constructor(options?: ErrorOptions) {
    super('registry did not answer in time', options);
  }
}

const REASON_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found',
  EAI_NONAME: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  EAI_FAIL: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  EHOSTDOWN: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

/** A connection failure's code said in words, for notices people read. */
export function unreachableReasonWords(reason: string): string {
  return REASON_WORDS[reason] ?? reason;
}
