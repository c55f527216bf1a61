import type { MessagePort } from 'node:worker_threads';
import type { AdvisoryLookup, AdvisorySnapshot, OsvAdvisory } from '../advisories/types.js';
import { analyze, type AnalyzeDeps } from '../sbom/analyze.js';
import { LRUCache } from 'lru-cache';
import type { Coordinate, Enricher, EnrichmentResult } from '../model/enrich-types.js';
import { coordinateKey, type PackageMetadata } from '../model/metadata.js';
import type { StandaloneOutcome } from '../ecosystems/npm/build.js';
import type { RegistryHttp } from '../ecosystems/types.js';
import { RegistryResponseError } from '../ecosystems/shared/http.js';
import { clock } from './budget-pool.js';
import {
  fromWire,
  isMainMessage,
  toWire,
  type AnalysisOutcome,
  type AnalysisTask,
  type CallAnswer,
  type MainCall,
  type ThreadMessage,
} from './analysis-protocol.js';

/**
 * The metadata this thread was answered with, per enricher of the caller, each entry until the
 * answer's `reusableUntil`: a lockfile seen again (CI runs the same ones all day) is enriched
 * without a round trip to the main thread, which cost both threads a wake-up and a copy of every
 * coordinate and its metadata (about a tenth of a worker's CPU per small job). Only a lookup that
 * the memo answers in full is answered here; any other goes to the main thread as before.
 */
const MEMO_ENTRIES = 20_000;
const memos = new Map<number, LRUCache<string, PackageMetadata>>();

function memoFor(registryId: number): LRUCache<string, PackageMetadata> {
  let memo = memos.get(registryId);
  if (memo === undefined) {
    memo = new LRUCache<string, PackageMetadata>({ max: MEMO_ENTRIES });
    memos.set(registryId, memo);
  }
  return memo;
}

/** The enrichment of `coordinates` from the memo, when it holds every one of them. */
function fromMemo(memo: LRUCache<string, PackageMetadata>, coordinates: readonly Coordinate[]): EnrichmentResult | null {
  const metadata = new Map<string, PackageMetadata>();
  for (const c of coordinates) {
    const key = coordinateKey(c.ecosystem, c.name, c.version);
    const held = memo.get(key);
    if (held === undefined) return null;
    metadata.set(key, held);
  }
  const n = coordinates.length;
  return { metadata, failed: [], counts: { coordinates_total: n, coordinates_done: n, cached: n, fetched: 0, fetch_failed: 0 } };
}

function remember(memo: LRUCache<string, PackageMetadata>, answer: EnrichmentResult): void {
  const ttl = (answer.reusableUntil ?? 0) - Date.now();
  if (ttl <= 0 || answer.failed.length > 0) return;
  for (const [key, value] of answer.metadata) memo.set(key, value, { ttl });
}

interface Pending {
  resolve(value: CallAnswer): void;
  reject(error: Error): void;
}

/**
 * An analysis thread's task: the unchanged pipeline, with its registry collaborators and
 * callbacks replaced by calls to the main thread. The main thread pauses the budget clock while
 * it answers a call, so the thread posts no clock messages of its own beyond the start.
 */
export default async function runAnalysis(task: AnalysisTask & { port: MessagePort }): Promise<AnalysisOutcome> {
  const { port } = task;
  const pending = new Map<number, Pending>();
  let nextId = 1;
  port.on('message', (message: unknown) => {
    if (!isMainMessage(message)) return;
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.ok) waiting.resolve(message.value);
    else waiting.reject(fromWire(message.error));
  });
  const post = (message: ThreadMessage): void => port.postMessage(message);
  const call = (request: MainCall): Promise<CallAnswer> =>
    new Promise<CallAnswer>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      post({ type: 'call', id, call: request });
    });

  // The main thread reports the enricher's progress as it goes; the final counts come with the result.
  const memo = task.registryId === null ? null : memoFor(task.registryId);
  let reused = 0;
  const registry: Enricher = {
    enrich: async (coordinates) => {
      const held = memo === null || coordinates.length === 0 ? null : fromMemo(memo, coordinates);
      if (held !== null) {
        reused += coordinates.length;
        return held;
      }
      const answer = (await call({ method: 'enrich', coordinates })) as EnrichmentResult;
      if (memo !== null) remember(memo, answer);
      return answer;
    },
  };
  // Registry requests of the ecosystems' resolvers go through the main thread's client (its
  // connections, its deadline); the budget clock stops while one is out.
  const http: RegistryHttp = {
    text: async (url, options) => (await call({ method: 'http', url, accept: options?.accept ?? null })) as string | null,
    json: async (url, options) => {
      const body = (await call({ method: 'http', url, accept: options?.accept ?? 'application/json' })) as string | null;
      if (body === null) return null;
      try {
        return JSON.parse(body) as unknown;
      } catch {
        throw new RegistryResponseError(502, url);
      }
    },
  };
  const advisories: AdvisoryLookup = {
    byPackages: async (ecosystem, names) => (await call({ method: 'advisories', ecosystem, names })) as readonly OsvAdvisory[],
    snapshots: async () => (await call({ method: 'advisory-snapshots' })) as readonly AdvisorySnapshot[],
  };
  const deps: AnalyzeDeps = {
    registry: task.registry ? registry : null,
    ...(task.advisories ? { advisories } : {}),
    registryAccess:
      task.registries === null
        ? null
        : { bases: task.registries, http, mavenAllowedRepositories: task.mavenAllowedRepositories, ...(task.resolutionTimeoutMs === null ? {} : { resolutionTimeoutMs: task.resolutionTimeoutMs }) },
    resolver: task.resolver ? async (project) => (await call({ method: 'resolve', project })) as StandaloneOutcome : null,
    onProgress: (progress) => post({ type: 'progress', progress }),
    environment: task.environment,
    ...(task.checkpoint ? {
          checkpoint: async (phase) => {
            await call({ method: 'checkpoint', phase });
          },
        } : {}),
    ...(task.maxOutputBytes !== null ? { maxOutputBytes: task.maxOutputBytes } : {}),
    ...(task.nowMs !== null ? { now: () => new Date(task.nowMs ?? 0) } : {}),
  };
  clock(port, true);
  try {
    const result = await analyze(task.files, task.format, deps);
    return { ok: true, result, reused };
  } catch (error) {
    return { ok: false, error: toWire(error) };
  } finally {
    port.close();
  }
}
