import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { sessions } from '../db/schema/index.js';

export interface ClientAttribution {
  readonly clientName: string | null;
  readonly clientVersion: string | null;
  readonly agent: string | null;
}

/** One row per (account, session id): first/last seen, request count and the latest attribution. */
export async function recordSessionRequest(
  db: Database,
  accountId: string,
  sessionId: string,
  attribution: ClientAttribution,
): Promise<void> {
  await db
    .insert(sessions)
    .values({ accountId, sessionId, ...attribution })
    .onConflictDoUpdate({
      target: [sessions.accountId, sessions.sessionId],
      set: {
        lastSeenAt: sql`now()`,
        requestCount: sql`${sessions.requestCount} + 1`,
        clientName: sql`coalesce(excluded.client_name, ${sessions.clientName})`,
        clientVersion: sql`coalesce(excluded.client_version, ${sessions.clientVersion})`,
        agent: sql`coalesce(excluded.agent, ${sessions.agent})`,
      },
    });
}
