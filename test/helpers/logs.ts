import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.js';

type LogLine = Record<string, unknown>;

/** A real pino logger whose JSON lines are kept in memory for assertions. */
export function captureLogs(): {
  logger: Logger;
  lines: () => LogLine[];
  text: () => string;
  /** Resolves once the lines written so far satisfy `done` (checked at each line written). */
  waitFor: (done: (lines: LogLine[]) => boolean) => Promise<void>;
} {
  const chunks: string[] = [];
  const waiting = new Set<() => void>();
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      for (const check of [...waiting]) check();
      callback();
    },
  });
  const logger = createLogger('info', stream);
  const text = (): string => chunks.join('');
  const lines = (): LogLine[] =>
    text()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as LogLine);
  const waitFor = (done: (lines: LogLine[]) => boolean): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (!done(lines())) return;
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
    });
  return { logger, text, lines, waitFor };
}
