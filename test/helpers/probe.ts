import { request } from 'undici';
import { responsiveBound } from './responsiveness.js';

/** One GET over real HTTP: its status and how long it took (ms). */
export async function timedGet(base: string, path: string, token?: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await request(`${base}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  await res.body.dump();
  return { status: res.statusCode, ms: performance.now() - started };
}

/** The slowest of a few probes of `/healthz` and of a small authenticated request, one after another. */
export async function baseline(base: string, token: string, rounds = 5): Promise<number> {
  let worst = 0;
  for (let i = 0; i < rounds; i++) {
    worst = Math.max(worst, (await timedGet(base, '/healthz')).ms, (await timedGet(base, '/v1/languages?q=ts&limit=1', token)).ms);
  }
  return worst;
}

/**
 * Probes `/healthz` and a small request over and over while `hostile` runs, and gives its result
 * with the slowest probe and how many probes answered meanwhile (each must answer 200).
 */
export async function probeWhile<T>(base: string, token: string, hostile: Promise<T>): Promise<{ result: T; worstMs: number; probes: number }> {
  const state = { done: false };
  const finished = hostile.finally(() => (state.done = true));
  let worstMs = 0;
  let probes = 0;
  const statuses = new Set<number>();
  while (!state.done) {
    for (const probe of [timedGet(base, '/healthz'), timedGet(base, '/v1/languages?q=ts&limit=1', token)]) {
      const { status, ms } = await probe;
      statuses.add(status);
      worstMs = Math.max(worstMs, ms);
      probes++;
    }
  }
  if ([...statuses].some((s) => s !== 200)) throw new Error(`a probe answered ${[...statuses].join(', ')}`);
  return { result: await finished, worstMs, probes };
}

/** The bound a probe must answer within while a hostile request runs, from the quiet baseline (responsiveBound). */
export function probeBound(baselineMs: number): number {
  return responsiveBound(baselineMs);
}

/** A JSON POST over real HTTP: its status and parsed body. */
export async function postJson(base: string, path: string, token: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await request(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, json: await res.body.json() };
}
