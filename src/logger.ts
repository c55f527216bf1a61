import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './log-levels.js';

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
      timestamp: isoTimeClock(),
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'token', '*.token', 'content', '*.content'],
        censor: '[redacted]',
      },
      serializers: { err: scrubbedError },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/**
 * `,"time":"<ISO 8601>"` as pino's isoTime writes it, with the text up to the second made once a
 * second: a Date and its toISOString() per line cost about twenty times a clock read.
 */
export function isoTimeClock(now: () => number = Date.now): () => string {
  let secondStart = Number.NaN;
  let head = '';
  return () => {
    const at = now();
    let ms = at - secondStart;
    if (!(ms >= 0 && ms < 1000)) {
      ms = ((at % 1000) + 1000) % 1000;
      secondStart = at - ms;
      // 2026-11-28T02:30:15.000Z: kept up to and with the decimal point.
      head = `,"time":"${new Date(secondStart).toISOString().slice(0, -4)}`;
    }
    return `${head}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
  };
}

const { chindingsSym, endSym, formattersSym, hooksSym, lsCacheSym, messageKeySym, mixinSym, needsMetadataGsym, streamSym, timeSym } = pino.symbols;

/**
 * A writer of info lines whose fields the caller has serialised (`,"key":value…`, JSON), written as
 * the logger writes its own (level, time, bindings, fields, message) straight to its stream,
 * through the symbols pino gives integrations: no object, serializer or redaction on the way.
 * Only for fields that hold no credential or content (nothing is redacted). A logger with a
 * mixin, a log formatter or a stream hook (none of ours has one) gets its lines the ordinary way.
 */
export function serialisedInfoWriter(logger: Logger, message: string): (fields: string) => void {
  const internals = logger as unknown as Record<symbol, unknown>;
  const formatters = internals[formattersSym] as { log?: unknown } | undefined;
  const hooks = internals[hooksSym] as { streamWrite?: unknown } | undefined;
  const stream = internals[streamSym] as DestinationStream & Record<symbol, unknown>;
  const absent = (value: unknown): boolean => value === undefined || value === null;
  const direct = absent(internals[mixinSym]) && absent(formatters?.log) && absent(hooks?.streamWrite) && stream[needsMetadataGsym] !== true;
  const messageKey = internals[messageKeySym];
  const info = logger.levels.values['info'] ?? 30;
  const tail = `,${JSON.stringify(typeof messageKey === 'string' ? messageKey : 'msg')}:${JSON.stringify(message)}${String(internals[endSym])}`;
  return (fields) => {
    if (logger.levelVal > info) return;
    if (!direct) {
      logger.info(JSON.parse(`{${fields.slice(1)}}`) as Record<string, unknown>, message);
      return;
    }
    const level = (internals[lsCacheSym] as Record<number, string>)[info] ?? `{"level":${info}`;
    stream.write(`${level}${(internals[timeSym] as () => string)()}${String(internals[chindingsSym])}${fields}${tail}`);
  };
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
