import type pg from 'pg';
import type { App, RoutePlugin } from '../http/app.js';
import { Type } from 'typebox';
import { migrationsCurrent } from '../db/migrate.js';
import { json } from '../http/openapi.js';

const Check = Type.Enum(['ok', 'unavailable']);
const Readiness = Type.Object({
  status: Type.Enum(['ready', 'unavailable']),
  checks: Type.Object({ postgres: Check, redis: Check, migrations: Check }),
});

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
    const probe = { tags: ['probes'], 'x-service-cost': { weight: 0, class: 'light' } } as const;
    app.get(
      '/healthz',
      { schema: { ...probe, summary: 'The process is alive', operationId: 'healthz', response: { 200: json('Alive.', Type.Object({ status: Type.Literal('ok') })) } } },
      async () => ({ status: 'ok' as const }),
    );
    app.get(
      '/readyz',
      {
        schema: {
          ...probe,
          summary: 'Postgres and Redis answer and migrations are current',
          operationId: 'readyz',
          response: { 200: json('Ready.', Readiness), 503: json('Not ready; checks say which dependency is not.', Readiness) },
        },
      },
      async (_request, reply) => {
      const [postgres, redis, migrations] = await Promise.all([
        check(async () => (await deps.pool.query('SELECT 1')).rowCount === 1),
        deps.pingRedis ? check(async () => (await deps.pingRedis?.()) !== undefined) : Promise.resolve('ok' as const),
        check(() => migrationsCurrent(deps.pool)),
      ]);
      const ready = postgres === 'ok' && redis === 'ok' && migrations === 'ok';
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks: { postgres, redis, migrations } });
      },
    );
  };
}
