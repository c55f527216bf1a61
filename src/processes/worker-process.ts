import type { Config } from '../config.js';
import { connectDatabase } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import type { Logger } from '../logger.js';
import { checkRedis, createRedis } from '../redis.js';
import { startWorkers } from './workers.js';
import { opsRoutes } from '../routes/ops.js';
import { startOpsServer } from './ops-server.js';
import { onShutdownSignals } from './signals.js';

/** `pkgscope worker`: consume every queue until a signal drains it. */
export async function runWorker(config: Config, logger: Logger): Promise<void> {
  await checkRedis(config.redisUrl);
  await runMigrations(config.databaseUrl);
  const database = connectDatabase(config.databaseUrl, { applicationName: 'pkgscope-worker', logger });
  const workers = await startWorkers({ config, database, logger });
  // Workers expose their metrics on their own ops port; the queue dashboard lives on the API's.
  const ops = await startOpsServer(config, database, logger, opsRoutes({ metrics: workers.metrics, queues: [], token: config.ops.token, queuesWritable: false }));
  // And to Redis, where every API's /metrics reads them: reachable without an ops port per worker.
  const metricsRedis = createRedis(config.redisUrl, 'commands', 'pkgscope-worker-metrics', logger);
  const stopPublishing = workers.metrics.publishTo(metricsRedis, config.redisPrefix, config.ops.metricsPublishMs);
  logger.info({ queues: workers.queues }, 'worker started');
  onShutdownSignals(async (signal) => {
    logger.info({ signal }, 'draining the worker');
    await stopPublishing();
    metricsRedis.disconnect();
    await ops?.close();
    await workers.close();
    await database.close();
    logger.info('worker stopped');
  });
}
