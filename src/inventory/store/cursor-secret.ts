import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { settings } from '../../db/schema/index.js';

/**
 * CURSOR_SECRET when configured; otherwise one generated on first use and kept in Postgres, so
 * that every API instance signs and accepts the same cursors.
 */
export async function cursorSecret(db: Database, configured: string | null): Promise<Buffer> {
  if (configured !== null) return Buffer.from(configured, 'utf8');
  await db
    .insert(settings)
    .values({ key: 'cursor_secret', value: randomBytes(32).toString('base64url') })
    .onConflictDoNothing({ target: settings.key });
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, 'cursor_secret'));
  if (!row) throw new Error('cursor secret could not be stored');
  return Buffer.from(row.value, 'utf8');
}
