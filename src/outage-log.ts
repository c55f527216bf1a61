import type { Logger } from './logger.js';

/** How often one component may warn about the same outage. */
export const OUTAGE_LOG_INTERVAL_MS = 30_000;

/** The part of an error worth a log line during an outage: no stack, no driver internals. */
function summary(error: unknown): { code?: string; message: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? { code, message: error.message } : { message: error.message };
  }
  return { message: String(error) };
}

/**
 * One structured warning per component per interval while a store (Postgres, Redis) is down:
 * a flapping connection reports the first failure and how many more it had, never a stack trace
 * per retry. `recovered` logs once when a component that warned works again.
 */
export class OutageLog {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly logger: Pick<Logger, 'warn' | 'info'>,
    private readonly intervalMs = OUTAGE_LOG_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  warn(component: string, error: unknown, msg = 'store connection problem'): void {
    const seen = this.last.get(component);
    const now = this.now();
    if (seen !== undefined && now - seen.at < this.intervalMs) {
      seen.suppressed += 1;
      return;
    }
    this.logger.warn({ component, error: summary(error), repeats: seen?.suppressed ?? 0 }, msg);
    this.last.set(component, { at: now, suppressed: 0 });
  }

  recovered(component: string, msg = 'store connection recovered'): void {
    if (!this.last.delete(component)) return;
    this.logger.info({ component }, msg);
  }
}
