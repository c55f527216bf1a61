import { fork, type ChildProcess } from 'node:child_process';
import type { Logger } from '../logger.js';
import { killGroup } from '../system/child.js';

export interface ChildSpec {
  readonly name: string;
  readonly args: readonly string[];
  /** Environment overrides of this child. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface SupervisorOptions {
  readonly script: string;
  readonly children: readonly ChildSpec[];
  readonly logger: Logger;
  /** First restart delay; doubles per consecutive crash up to maxBackoffMs. */
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** A child that ran this long before crashing restarts with the initial delay again. */
  readonly stableAfterMs?: number;
  /** How long a draining child may take before it is killed. */
  readonly graceMs: number;
  /** Told the base URL a child announced it listens on (its first and every later start). */
  readonly onListening?: (url: string) => void;
}

interface Slot {
  readonly spec: ChildSpec;
  child: ChildProcess | null;
  startedAt: number;
  crashes: number;
  restartTimer: NodeJS.Timeout | null;
}

/**
 * `pkgscope start`: runs the API and a worker as child processes, restarts a crashed child with
 * exponential backoff, and stops both gracefully on the first signal (killing them on the second).
 */
export class Supervisor {
  private readonly slots: Slot[];
  private stopping = false;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly stableAfterMs: number;

  constructor(private readonly options: SupervisorOptions) {
    this.slots = options.children.map((spec) => ({ spec, child: null, startedAt: 0, crashes: 0, restartTimer: null }));
    this.initialBackoffMs = options.initialBackoffMs ?? 500;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.stableAfterMs = options.stableAfterMs ?? 60_000;
  }

  start(): void {
    for (const slot of this.slots) this.spawn(slot);
  }

  private spawn(slot: Slot): void {
    slot.restartTimer = null;
    // Its own process group, so the grace deadline (or a second signal) kills it with whatever
    // it left in its group (git runs in groups of its own, killed at its own deadline); a first
    // signal still reaches the child alone, which drains.
    const child = fork(this.options.script, [...slot.spec.args], { stdio: 'inherit', env: { ...process.env, ...slot.spec.env }, detached: true });
    slot.child = child;
    slot.startedAt = Date.now();
    this.options.logger.info({ child: slot.spec.name, childPid: child.pid }, 'child started');
    child.on('message', (message: unknown) => {
      const url = (message as { kind?: unknown; url?: unknown } | null)?.url;
      if ((message as { kind?: unknown } | null)?.kind === 'listening' && typeof url === 'string') this.options.onListening?.(url);
    });
    child.once('exit', (code, signal) => {
      slot.child = null;
      if (this.stopping) return;
      if (Date.now() - slot.startedAt >= this.stableAfterMs) slot.crashes = 0;
      const delay = Math.min(this.maxBackoffMs, this.initialBackoffMs * 2 ** slot.crashes);
      slot.crashes += 1;
      this.options.logger.error({ child: slot.spec.name, code, signal, restartInMs: delay }, 'child exited; restarting');
      slot.restartTimer = setTimeout(() => this.spawn(slot), delay);
    });
  }

  /** Sends `signal` to every child and waits for them; kills what is left after the grace period. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.stopping = true;
    const exits = this.slots.map(async (slot) => {
      if (slot.restartTimer) clearTimeout(slot.restartTimer);
      const child = slot.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(signal);
      const timer = setTimeout(() => killGroup(child), this.options.graceMs);
      await exited;
      clearTimeout(timer);
    });
    await Promise.all(exits);
  }

  /** Second signal: no more waiting. */
  kill(): void {
    this.stopping = true;
    for (const slot of this.slots) {
      if (slot.restartTimer) clearTimeout(slot.restartTimer);
      if (slot.child) killGroup(slot.child);
    }
  }

  pids(): Record<string, number | undefined> {
    return Object.fromEntries(this.slots.map((s) => [s.spec.name, s.child?.pid]));
  }
}
