import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/**
 * JSON lines on stdout. Credentials and uploaded content never reach a log line: request
 * headers are not serialised, and these paths are censored wherever they appear.
 *
 * Stdout is written asynchronously (pino's SonicBoom with `sync: false`): the lines logged while
 * a write is out go together in the next one, where a synchronous write per line cost a system
 * call per request (about a quarter of the API's CPU under status polling). Nothing waits for a
 * quiet moment, and pino flushes what is left when the process exits.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream, base: Record<string, unknown> = {}): Logger {
  return pino(
    {
      level,
      base: { service: 'pkgscope', pid: process.pid, ...base },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'token', '*.token', 'content', '*.content'],
        censor: '[redacted]',
      },
      serializers: { err: scrubbedError },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** drizzle's query errors end their message with the query's parameters: uploaded texts among them. */
const PARAMS = '\nparams: ';
/** Error fields that quote a query's values: drizzle's `params`, PostgreSQL's `where` ("parameter $3 = '…'"). */
const QUOTING_FIELDS = ['params', 'where'];

function cutAtParams(text: string): string {
  const at = text.indexOf(PARAMS);
  return at === -1 ? text : `${text.slice(0, at)}${PARAMS}[redacted]`;
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > 4) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const field of QUOTING_FIELDS) if (field in out) out[field] = '[redacted]';
  const message = out['message'];
  if (typeof message === 'string' && message.includes(PARAMS)) {
    const kept = cutAtParams(message);
    out['message'] = kept;
    const stack = out['stack'];
    // The stack opens with the message; its frames follow once the message is over.
    if (typeof stack === 'string') out['stack'] = stack.includes(message) ? stack.replace(message, kept) : cutAtParams(stack);
  }
  if ('cause' in out) out['cause'] = scrub(out['cause'], depth + 1);
  return out;
}

/** pino's error serializer, with the values a failed query quotes censored (recursively through causes). */
function scrubbedError(error: unknown): unknown {
  return scrub(error instanceof Error ? pino.stdSerializers.err(error) : error, 0);
}

export type { Logger };
