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
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

export type { Logger };
