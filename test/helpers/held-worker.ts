/**
 * A test-only worker entry: `pkgscope worker` with its jobs held at a point the test names
 * (argv[2]), so a test can kill, stop or fence a worker mid-job. Started by spawnHeldWorker
 * (hold.ts). An analysis phase is held through the analysis's checkpoint; `terminal` holds the
 * publish of a committed terminal snapshot (the window in which a crash strands event streams):
 * this process's Redis clients never publish a terminal snapshot, and the test kills it there.
 */
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config.js';
import { connectDatabase } from '../../src/db/client.js';
import { jobChannel } from '../../src/jobs/events.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { onShutdownSignals } from '../../src/processes/signals.js';
import type { AnalysisPhase } from '../../src/model/types.js';
import { analysisPoolFor } from '../../src/processes/wiring.js';
import { startWorkers } from '../../src/processes/workers.js';
import { HOLDING, HOLDING_TERMINAL, holdingAt, type HoldPoint } from './hold.js';

const POINTS: readonly HoldPoint[] = ['resolving', 'enriching', 'rendering', 'terminal'];

function holdPoint(arg: string | undefined): HoldPoint {
  const point = POINTS.find((p) => p === arg);
  if (point === undefined) throw new Error(`usage: held-worker.ts <${POINTS.join('|')}> (got ${String(arg)})`);
  return point;
}

/** Every publish of a terminal snapshot on a job channel is held for good (and logged). */
function holdTerminalPublishes(prefix: string, logger: Logger): void {
  const channels = jobChannel(prefix, '');
  type Publish = (this: Redis, channel: string, message: string) => Promise<number>;
  const prototype = Redis.prototype as unknown as { publish: Publish };
  const publish = prototype.publish;
  prototype.publish = function (channel, message) {
    if (channel.startsWith(channels)) {
      const state = (JSON.parse(message) as { state?: unknown }).state;
      if (state === 'succeeded' || state === 'failed') {
        logger.warn({ channel, state }, HOLDING_TERMINAL);
        return new Promise<number>(() => undefined);
      }
    }
    return publish.call(this, channel, message);
  };
}

const point = holdPoint(process.argv[2]);
const config = loadConfig();
const logger = createLogger(config.logLevel, undefined, { role: 'worker' });
if (point === 'terminal') holdTerminalPublishes(config.redisPrefix, logger);
const database = connectDatabase(config.databaseUrl, { applicationName: 'pkgscope-worker', logger });
// The analysis on a thread, as in `pkgscope worker`: the event loop stays free to renew queue locks.
const pool = analysisPoolFor(config, logger);
const workers = await startWorkers({
  config,
  database,
  logger,
  ...(point === 'terminal' ? {} : { analyze: holdingAt(point, (phase: AnalysisPhase) => logger.warn({ phase }, HOLDING), pool.analyze) }),
});
logger.info({ queues: workers.queues }, 'worker started');
onShutdownSignals(async (signal) => {
  logger.info({ signal }, 'draining the worker');
  await workers.close();
  await pool.close();
  await database.close();
  logger.info('worker stopped');
});
