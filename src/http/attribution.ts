import type { IncomingMessage } from 'node:http';
import type { ClientAttribution } from '../accounts/sessions.js';
import { headerLines } from './headers.js';

/**
 * Optional attribution headers. Values are trimmed; a value that is not printable ASCII or is
 * too long is dropped silently. The session id is the exception: an invalid or repeated one is
 * an error the caller must hear about (400 INVALID_SESSION_ID).
 */
export interface Attribution extends ClientAttribution {
  readonly sessionId: string | null;
}

export const ATTRIBUTION_LIMITS = {
  'x-service-client-name': 80,
  'x-service-client-version': 80,
  'x-service-agent': 160,
} as const;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Trimmed, printable-ASCII value within `maxBytes`, else null. Repeated headers are invalid. */
export function cleanAttribution(values: readonly string[] | undefined, maxBytes: number): string | null {
  if (values === undefined || values.length !== 1) return null;
  const value = (values[0] ?? '').trim();
  if (value === '' || !PRINTABLE_ASCII.test(value) || value.length > maxBytes) return null;
  return value;
}

export type SessionHeader = { readonly ok: true; readonly sessionId: string | null } | { readonly ok: false };

/** Two header lines, a comma-joined list or a value outside the pattern are all invalid. */
export function parseSessionHeader(values: readonly string[] | undefined): SessionHeader {
  if (values === undefined) return { ok: true, sessionId: null };
  if (values.length !== 1) return { ok: false };
  const value = values[0] ?? '';
  return SESSION_ID.test(value) ? { ok: true, sessionId: value } : { ok: false };
}

const ATTRIBUTION_HEADERS = new Set([...Object.keys(ATTRIBUTION_LIMITS), 'x-service-session-id']);

export function readAttribution(raw: IncomingMessage): { attribution: Attribution; sessionValid: boolean } {
  const distinct = headerLines(raw, ATTRIBUTION_HEADERS);
  const session = parseSessionHeader(distinct['x-service-session-id']);
  return {
    attribution: {
      clientName: cleanAttribution(distinct['x-service-client-name'], ATTRIBUTION_LIMITS['x-service-client-name']),
      clientVersion: cleanAttribution(
        distinct['x-service-client-version'],
        ATTRIBUTION_LIMITS['x-service-client-version'],
      ),
      agent: cleanAttribution(distinct['x-service-agent'], ATTRIBUTION_LIMITS['x-service-agent']),
      sessionId: session.ok ? session.sessionId : null,
    },
    sessionValid: session.ok,
  };
}
