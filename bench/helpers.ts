import pg from 'pg';
import { runMigrations } from '../src/db/migrate.js';

/** A fresh, migrated database for one benchmark run (dropped and recreated each time). */
export async function benchDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: process.env['BENCH_PG_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  await admin.end();
  const url = new URL(process.env['BENCH_PG_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  await runMigrations(url.toString());
  return url.toString();
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

export const ms = (n: number): string => `${n.toFixed(1)} ms`;
