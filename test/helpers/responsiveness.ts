import { readFileSync } from 'node:fs';

/**
 * Whether a process stays responsive while it does something hostile: probes (a `/healthz`, a
 * small request) are sent one after another, and the slowest answer is what counts. A baseline
 * taken first in the same test says what "responsive" means on this machine at this moment.
 */
export class LatencyProbe {
  private readonly latencies: number[] = [];
  private running = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(private readonly probes: readonly (() => Promise<unknown>)[]) {}

  private async once(): Promise<void> {
    for (const probe of this.probes) {
      const started = performance.now();
      await probe();
      this.latencies.push(performance.now() - started);
    }
  }

  /** The slowest of `rounds` rounds of probes, sent back to back: the baseline. */
  async baseline(rounds = 20): Promise<number> {
    for (let i = 0; i < rounds; i++) await this.once();
    const slowest = Math.max(...this.latencies);
    this.latencies.length = 0;
    return slowest;
  }

  /** Probes in rounds until stop() (a round at least every `gapMs`). */
  start(gapMs = 20): void {
    this.running = true;
    const probing = async (): Promise<void> => {
      while (this.running) {
        await this.once();
        await new Promise((resolve) => setTimeout(resolve, gapMs));
      }
    };
    // A failed probe ends the probing; stop() reports it.
    this.loop = probing().finally(() => (this.running = false));
    this.loop.catch(() => undefined);
  }

  /** Stops probing; the slowest answer while probing and how many were sent. */
  async stop(): Promise<{ slowest: number; probes: number }> {
    this.running = false;
    await this.loop;
    return { slowest: Math.max(0, ...this.latencies), probes: this.latencies.length };
  }
}

/** Resident memory of a process (Linux), in bytes. */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/** Allowed slowdown of a probe over the baseline while the hostile work runs (the 100 ms). */
export const RESPONSIVE_MS = 100;

/**
 * The slowest a probe beside hostile work may answer, from a baseline of the same probes taken
 * in the same test just before: RESPONSIVE_MS over it, or five times it, and never under 250 ms.
 * On a loaded two-core machine the baseline itself moves several-fold between two measures
 * seconds apart (a neighbour's build, GC), so a tight figure fails on load, not on a held event
 * loop: what these bounds catch is the loop held for the length of a hostile parse or walk
 * (seconds), which no factor hides. Absolute figures belong to the benchmarks (bench/).
 */
export function responsiveBound(baselineMs: number): number {
  return Math.max(250, baselineMs + RESPONSIVE_MS, 5 * baselineMs);
}
