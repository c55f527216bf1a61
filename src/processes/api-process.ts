import { ensureBootstrapToken } from '../accounts/tokens.js';
import type { Config } from '../config.js';
import { connectDatabase } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import { buildApp } from '../http/app.js';
import type { Logger } from '../logger.js';
import { checkRedis } from '../redis.js';
import { startOpsServer } from './ops-server.js';
import { apiAppDeps, apiOpsRoutes, createApiServices } from './routes.js';
import { onShutdownSignals } from './signals.js';

/** `pkgscope api`: migrate, then serve HTTP until a signal drains it. */
export async function runApi(config: Config, logger: Logger): Promise<void> {
  await checkRedis(config.redisUrl);
  await runMigrations(config.databaseUrl);
  const database = connectDatabase(config.databaseUrl, { applicationName: 'pkgscope-api', logger });
  if (config.authBootstrapToken !== null) {
    await ensureBootstrapToken(database.db, config.authBootstrapToken);
    logger.info('bootstrap token ensured for account "default"');
  }
  const services = await createApiServices(config, database, logger);
  const app = await buildApp(apiAppDeps(config, database, services, logger));
  const address = await app.listen({ port: config.port, host: config.host });
  // Under `pkgscope start` (a forked child with an IPC channel) the supervisor tells the person
  // who started it where to go; a fleet's API process has no channel and stays JSON-only.
  process.send?.({ kind: 'listening', url: address });
  const ops = await startOpsServer(config, database, logger, apiOpsRoutes(config, services));
  onShutdownSignals(async (signal) => {
    logger.info({ signal }, 'draining the API');
    await app.close();
    await ops?.close();
    await services.close();
    await database.close();
    logger.info('API stopped');
  });
}
