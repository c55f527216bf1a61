import type pg from 'pg';
import type { App, RoutePlugin } from '../http/app.js';
import { migrationsCurrent } from '../db/migrate.js';

export interface HealthDeps {
  readonly pool: pg.Pool;
  /** Answers when Redis does; absent in processes without Redis. */
  readonly pingRedis?: () => Promise<unknown>;
}

async function check(probe: () => Promise<boolean>, timeoutMs = 2_000): Promise<'ok' | 'unavailable'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return (await Promise.race([probe(), timeout])) ? 'ok' : 'unavailable';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

/** `/healthz`: the process is alive. `/readyz`: Postgres and Redis answer and migrations are current. */
export function healthRoutes(deps: HealthDeps): RoutePlugin {
  return async (app: App) => {
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/readyz', async (_request, reply) => {
      const [postgres, redis, migrations] = await Promise.all([
        check(async () => (await deps.pool.query('SELECT 1')).rowCount === 1),
        deps.pingRedis ? check(async () => (await deps.pingRedis?.()) !== undefined) : Promise.resolve('ok' as const),
        check(() => migrationsCurrent(deps.pool)),
      ]);
      const ready = postgres === 'ok' && redis === 'ok' && migrations === 'ok';
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks: { postgres, redis, migrations } });
    });
  };
}
