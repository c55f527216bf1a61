import type pg from 'pg';
import type { App, RoutePlugin } from '../http/app.js';
import { Type } from 'typebox';
import { migrationsCurrent } from '../db/migrate.js';
import { json, problemResponses } from '../http/openapi.js';
import { isStoreUnavailable } from '../store-errors.js';

const Check = Type.Enum(['ok', 'unavailable']);
const Readiness = Type.Object({
  status: Type.Enum(['ready', 'unavailable']),
  checks: Type.Object({ postgres: Check, redis: Check, migrations: Check }),
});

export interface HealthDeps {
  readonly pool: pg.Pool;
  /** Answers when Redis does; absent in processes without Redis. */
  readonly pingRedis?: () => Promise<unknown>;
  /** Told when a Postgres session is lost, so migrations are checked again on reconnect. */
  readonly onConnectionLost?: (listener: () => void) => void;
}

/**
 * Whether the migrations are current, checked at start-up and again after Postgres was lost
 * (it may come back restored or replaced), never per probe: a probe is one `SELECT 1`, so CPU
 * load alone cannot make the API look unready.
 */
class MigrationCheck {
  private known: Promise<boolean> | null = null;
  constructor(private readonly pool: pg.Pool) {}

  current(): Promise<boolean> {
    const check = (this.known ??= migrationsCurrent(this.pool));
    // A failed check (Postgres down) is not remembered: the next probe checks again.
    check.catch(() => {
      if (this.known === check) this.known = null;
    });
    return check;
  }

  invalidate(): void {
    this.known = null;
  }
}

/**
 * `SELECT 1`, tried once more when it failed on a session Postgres had ended (a restart or
 * failover leaves every idle pooled session dead; the pool drops the one that failed, so the
 * second try opens a new session). A store that answers on a new session is ready.
 */
async function postgresAnswers(pool: pg.Pool): Promise<boolean> {
  try {
    return (await pool.query('SELECT 1')).rowCount === 1;
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    return (await pool.query('SELECT 1')).rowCount === 1;
  }
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
  const migrations = new MigrationCheck(deps.pool);
  deps.onConnectionLost?.(() => migrations.invalidate());
  return async (app: App) => {
    // Start-up check; a probe arriving before it ends waits for the same one.
    migrations.current().catch(() => undefined);
    const probe = { tags: ['probes'], 'x-service-cost': { weight: 0, class: 'light' } } as const;
    app.get(
      '/healthz',
      { schema: { ...probe, summary: 'The process is alive', operationId: 'healthz', response: { 200: json('Alive.', Type.Object({ status: Type.Literal('ok') })), ...problemResponses(405) } } },
      async () => ({ status: 'ok' as const }),
    );
    app.get(
      '/readyz',
      {
        schema: {
          ...probe,
          summary: 'Postgres and Redis answer and migrations are current',
          operationId: 'readyz',
          response: { 200: json('Ready.', Readiness), 503: json('Not ready; checks say which dependency is not.', Readiness), ...problemResponses(405) },
        },
      },
      async (_request, reply) => {
      const [postgres, redis] = await Promise.all([
        check(() => postgresAnswers(deps.pool)),
        deps.pingRedis ? check(async () => (await deps.pingRedis?.()) !== undefined) : Promise.resolve('ok' as const),
      ]);
      if (postgres !== 'ok') migrations.invalidate();
      const current = postgres === 'ok' ? await check(() => migrations.current()) : ('unavailable' as const);
      const ready = postgres === 'ok' && redis === 'ok' && current === 'ok';
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks: { postgres, redis, migrations: current } });
      },
    );
  };
}
