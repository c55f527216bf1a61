import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { buildApp, type App, type RoutePlugin } from '../http/app.js';
import type { Logger } from '../logger.js';

/**
 * The ops endpoints on their own port (OPS_PORT, bound to OPS_HOST), when one is configured:
 * metrics scrapers and the queue dashboard never share the API's port, rate limits or clients.
 * Null when no ops port is set.
 */
export async function startOpsServer(config: Config, database: DatabaseHandle, logger: Logger, routes: RoutePlugin): Promise<App | null> {
  if (config.ops.port === null) {
    if (config.ops.token === null) logger.info('ops endpoints (metrics, queue dashboard) are off: set OPS_PORT or OPS_TOKEN');
    return null;
  }
  const app = await buildApp({ config, database, logger: logger.child({ component: 'ops' }), publicRoutes: [routes] });
  await app.listen({ port: config.ops.port, host: config.ops.host });
  logger.info({ port: config.ops.port, host: config.ops.host }, 'ops endpoints listening');
  return app;
}
