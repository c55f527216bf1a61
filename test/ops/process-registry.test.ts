import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTracked } from '../helpers/processes.js';

/**
 * A test that starts processes leaves none behind, whatever ends it: its own timeout (the leak
 * guard kills what the file registered) or a signal to the test runner (the test process kills
 * them as it goes). A fixture test file run by a vitest of its own shows it, by pid.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const CONFIG = 'test/fixtures/processes/vitest.config.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pkgscope-processes-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** Resolves once every pid is gone: a SIGKILLed process is reaped by init a moment later. */
async function gone(pids: readonly number[], withinMs = 10_000): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return pids.filter(alive);
}

/** Runs the fixture file in a vitest of its own (a process group of its own); `whileRunning` gets the fixture's pids once written. */
async function runFixture(name: string, testTimeoutMs: number, whileRunning?: (vitestPid: number, pids: readonly number[]) => void) {
  const pidsFile = join(dir, `${name}.json`);
  const child = spawnTracked(
    process.execPath,
    [VITEST, 'run', '--config', CONFIG, '--reporter=verbose', '--no-color'],
    { cwd: ROOT, env: { ...process.env, PIDS_FILE: pidsFile, TEST_TIMEOUT_MS: String(testTimeoutMs), CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    `vitest (${name})`,
  );
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (output += c));
  const closed = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  if (whileRunning !== undefined) {
    const deadline = Date.now() + 60_000;
    while (!existsSync(pidsFile) || readFileSync(pidsFile, 'utf8') === '') {
      if (Date.now() > deadline) throw new Error(`the fixture wrote no pids within 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    whileRunning(child.pid ?? 0, JSON.parse(readFileSync(pidsFile, 'utf8')) as number[]);
  }
  const [code, signal] = await closed;
  const pids = JSON.parse(readFileSync(pidsFile, 'utf8')) as number[];
  return { code, signal, output, pids };
}

describe('processes a test file started', () => {
  it('are killed, with their children, when the test times out', async () => {
    const run = await runFixture('timeout', 1_000);
    expect(run.output).toMatch(/Test timed out in 1000ms/);
    expect(run.output).toContain('test file left processes running (killed now)');
    expect(run.code).toBe(1);
    expect(run.pids).toHaveLength(2);
    expect(await gone(run.pids)).toEqual([]);
  }, 90_000);

  it('are killed, with their children, when the test runner is interrupted', async () => {
    // Ctrl-C: SIGINT to the runner's process group while the test still runs.
    const run = await runFixture('interrupted', 600_000, (vitest) => process.kill(-vitest, 'SIGINT'));
    expect(run.pids).toHaveLength(2);
    expect(await gone(run.pids)).toEqual([]);
  }, 90_000);

  it('are killed, with their children, when the test runner is killed', async () => {
    // Only the runner dies (SIGKILL): its test process loses its channel to it.
    let runner = 0;
    const run = await runFixture('runner-killed', 600_000, (vitest) => {
      runner = vitest;
      process.kill(vitest, 'SIGKILL');
    });
    try {
      expect(run.signal).toBe('SIGKILL');
      expect(run.pids).toHaveLength(2);
      expect(await gone(run.pids)).toEqual([]);
    } finally {
      // Its orphaned test process ends by itself once its test times out; this one need not wait.
      killGroup(runner);
    }
  }, 90_000);
});
