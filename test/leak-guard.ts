import { afterAll, beforeAll } from 'vitest';
import { killAll, stillRunning } from './helpers/processes.js';

/**
 * Fails a test file that leaves sockets, servers or child processes open after its own
 * afterAll hooks ran (this hook is registered first, so it runs last). Processes the file started
 * (test/helpers/processes.ts) that still run are killed first, whatever failed: a test that timed
 * out never reached its own clean-up.
 */
const WATCHED = ['TCPSocketWrap', 'TCPServerWrap', 'ProcessWrap', 'PipeServerWrap'];
let baseline = new Map<string, number>();

function counts(): Map<string, number> {
  const result = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) {
    if (WATCHED.includes(type)) result.set(type, (result.get(type) ?? 0) + 1);
  }
  return result;
}

function leaks(): string[] {
  const now = counts();
  return WATCHED.filter((t) => (now.get(t) ?? 0) > (baseline.get(t) ?? 0)).map(
    (t) => `${t}: ${now.get(t) ?? 0} open, ${baseline.get(t) ?? 0} before the file`,
  );
}

beforeAll(() => {
  baseline = counts();
});

afterAll(async () => {
  const running = await stillRunning(2_000);
  killAll();
  if (running.length > 0) throw new Error(`test file left processes running (killed now):\n  ${running.join('\n  ')}`);
  // Closed sockets leave the handle list on a later tick; give them a moment to go.
  for (let i = 0; i < 50 && leaks().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
  const open = leaks();
  if (open.length > 0) throw new Error(`test file left resources open:\n  ${open.join('\n  ')}`);
});
