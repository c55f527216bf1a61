import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/**
 * JSON lines on stdout. Credentials and uploaded content never reach a log line: request
 * headers are not serialised, and these paths are censored wherever they appear.
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
    destination,
  );
}

export type { Logger };
