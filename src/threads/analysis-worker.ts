import type { MessagePort } from 'node:worker_threads';
import { analyze, type AnalyzeDeps } from '../sbom/analyze.js';
import type { Enricher, EnrichmentResult } from '../sbom/enrich-types.js';
import type { StandaloneOutcome } from '../sbom/ecosystems/npm/build.js';
import type { RegistryHttp } from '../sbom/ecosystems/types.js';
import { RegistryResponseError } from '../registry/http.js';
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
  const registry: Enricher = {
    enrich: async (coordinates) => (await call({ method: 'enrich', coordinates })) as EnrichmentResult,
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
  const deps: AnalyzeDeps = {
    registry: task.registry ? registry : null,
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
    return { ok: true, result: await analyze(task.files, task.format, deps) };
  } catch (error) {
    return { ok: false, error: toWire(error) };
  } finally {
    port.close();
  }
}
