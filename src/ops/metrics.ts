import { hostname } from 'node:os';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobObserver } from '../jobs/runner.js';
import type { MetadataCache, MetadataClient } from '../model/enrich-types.js';
import type { OutputFormat } from '../model/types.js';
import { VALIDATED_FORMATS } from '../sbom/validate/defects.js';

/** Queue states reported as depth (BullMQ's own state names). */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'] as const;

/**
 * The Prometheus metrics of one process (API or worker), in a registry of its own so that
 * several apps in one process (tests) never collide. Queue depth, the age of the oldest waiting
 * job and live workers are read from Redis when scraped.
 */
export class Metrics implements JobObserver {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly jobPhaseDuration: Histogram<'phase'>;
  readonly jobsFinished: Counter<'outcome' | 'code'>;
  readonly registryRequestDuration: Histogram<'outcome'>;
  readonly registryFailures: Counter<'reason'>;
  readonly cacheLookups: Counter<'result'>;
  readonly invalidDocuments: Counter<'format'>;
  readonly sseStreams: Gauge;
  private readonly queues = new Map<string, Queue>();
  /** Run before each scrape (figures that are read, not counted). */
  private readonly collectors: (() => Promise<void>)[] = [];
  private hits = 0;
  private misses = 0;

  /** Where the fleet's workers publish their metrics; set in API processes, whose scrape includes them. */
  private fleet: { readonly redis: Redis; readonly prefix: string } | null = null;

  constructor(readonly processKind: 'api' | 'worker') {
    this.registry.setDefaultLabels({ process: processKind });
    collectDefaultMetrics({ register: this.registry, prefix: 'pkgscope_' });
    // prom-client's unlabelled totals of active handles, requests and resources are gauges named
    // `_total`, which Prometheus reserves for counters (promtool refuses them); the same figures
    // remain as the sums of `pkgscope_nodejs_active_{handles,requests,resources}` by type.
    for (const name of ['handles', 'requests', 'resources']) this.registry.removeSingleMetric(`pkgscope_nodejs_active_${name}_total`);
    const registers = [this.registry];
    this.httpDuration = new Histogram({
      name: 'pkgscope_http_request_duration_seconds',
      help: 'HTTP request duration by route (the route pattern, not the URL) and status code.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.jobPhaseDuration = new Histogram({
      name: 'pkgscope_job_phase_duration_seconds',
      help: 'Duration of each phase of lockfile analysis job attempts.',
      labelNames: ['phase'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.jobsFinished = new Counter({
      name: 'pkgscope_jobs_finished_total',
      help: 'Lockfile analysis jobs that reached a terminal state, by outcome and error code.',
      labelNames: ['outcome', 'code'],
      registers,
    });
    this.registryRequestDuration = new Histogram({
      name: 'pkgscope_registry_request_duration_seconds',
      help: 'Registry metadata requests (retries included) by outcome: ok, not_found or error.',
      labelNames: ['outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.registryFailures = new Counter({
      name: 'pkgscope_registry_request_failures_total',
      help: 'Registry metadata requests that failed, by reason (transient or other).',
      labelNames: ['reason'],
      registers,
    });
    this.cacheLookups = new Counter({
      name: 'pkgscope_enrichment_cache_lookups_total',
      help: 'Enrichment metadata cache lookups by result (hit or miss).',
      labelNames: ['result'],
      registers,
    });
    this.invalidDocuments = new Counter({
      name: 'pkgscope_invalid_documents_total',
      help: 'Documents this process wrote that failed its own validation (failure code invalid_response, a defect), by format.',
      labelNames: ['format'],
      registers,
    });
    // Every format's series exists from the start, so that an alert on any increase needs no absent() guard.
    for (const format of VALIDATED_FORMATS) this.invalidDocuments.inc({ format }, 0);
    const ratio = new Gauge({
      name: 'pkgscope_enrichment_cache_hit_ratio',
      help: 'Share of enrichment cache lookups answered from the cache since the process started.',
      registers,
    });
    this.sseStreams = new Gauge({ name: 'pkgscope_sse_streams_open', help: 'Open job event streams.', registers });
    const queueJobs = new Gauge({ name: 'pkgscope_queue_jobs', help: 'Jobs per queue and state.', labelNames: ['queue', 'state'], registers });
    const oldest = new Gauge({
      name: 'pkgscope_queue_oldest_waiting_age_seconds',
      help: 'Age of the oldest waiting job per queue (0 when none waits).',
      labelNames: ['queue'],
      registers,
    });
    const workers = new Gauge({ name: 'pkgscope_queue_workers', help: 'Live workers connected to each queue.', labelNames: ['queue'], registers });
    // Read at scrape time: queue figures live in Redis and are shared by the fleet.
    this.collectors.push(async () => {
      const total = this.hits + this.misses;
      ratio.set(total === 0 ? 0 : this.hits / total);
      await Promise.all(
        [...this.queues].map(async ([name, queue]) => {
          const counts = await queue.getJobCounts(...QUEUE_STATES);
          for (const state of QUEUE_STATES) queueJobs.set({ queue: name, state }, counts[state] ?? 0);
          const [first] = await queue.getWaiting(0, 0);
          oldest.set({ queue: name }, first ? Math.max(0, (Date.now() - first.timestamp) / 1000) : 0);
          workers.set({ queue: name }, await queue.getWorkersCount());
        }),
      );
    });
  }

  /** Reports these queues' depth, oldest waiting job and live workers. */
  watchQueues(queues: readonly Queue[]): void {
    for (const queue of queues) this.queues.set(queue.name, queue);
  }

  /** The text exposition, queue figures read first (a Redis failure leaves them at their last values). */
  async scrape(): Promise<string> {
    await Promise.all(this.collectors.map((collect) => collect().catch(() => undefined)));
    if (this.fleet === null) return this.registry.metrics();
    // An API's scrape carries the workers' series (`process="worker"`, summed over the live
    // workers) beside its own: one scrape target sees the whole fleet without an ops port per worker.
    const own = await this.registry.getMetricsAsJSON();
    const workers = await this.workerMetrics(this.fleet).catch(() => []);
    return AggregatorRegistry.aggregate([own, ...workers]).metrics();
  }

  /**
   * A worker's metrics, published to Redis every `intervalMs` (each copy expires after three
   * intervals, so a dead worker's series go away); returns the function that stops publishing.
   */
  publishTo(redis: Redis, prefix: string, intervalMs: number): () => Promise<void> {
    const key = `${prefix}:metrics:worker:${hostname()}:${process.pid}`;
    const publish = async (): Promise<void> => {
      await redis.set(key, JSON.stringify(await this.registry.getMetricsAsJSON()), 'PX', intervalMs * 3);
    };
    // A Redis outage costs a gap in the series, never the worker.
    const tick = (): void => void publish().catch(() => undefined);
    tick();
    const timer = setInterval(tick, intervalMs);
    timer.unref();
    return async () => {
      clearInterval(timer);
      await redis.del(key).catch(() => undefined);
    };
  }

  /** Makes this (API) process's scrape include the metrics the fleet's workers publish under `prefix`. */
  includeWorkersFrom(redis: Redis, prefix: string): void {
    this.fleet = { redis, prefix };
  }

  private async workerMetrics(fleet: { readonly redis: Redis; readonly prefix: string }): Promise<MetricObjectWithValues<MetricValue<string>>[][]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await fleet.redis.scan(cursor, 'MATCH', `${fleet.prefix}:metrics:worker:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    if (keys.length === 0) return [];
    const values = await fleet.redis.mget(...keys);
    return values.flatMap((value) => {
      if (value === null) return [];
      try {
        return [JSON.parse(value) as MetricObjectWithValues<MetricValue<string>>[]];
      } catch {
        return [];
      }
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  phase(phase: string, seconds: number): void {
    this.jobPhaseDuration.observe({ phase }, seconds);
  }

  finished(outcome: 'completed' | 'failed', code: string | null): void {
    this.jobsFinished.inc({ outcome, code: code ?? 'none' });
  }

  invalidDocument(format: OutputFormat): void {
    this.invalidDocuments.inc({ format });
  }

  /** A metadata client whose requests are timed and counted. */
  observeClient(client: MetadataClient): MetadataClient {
    return {
      fetch: async (name, version, signal) => {
        const started = performance.now();
        try {
          const found = await client.fetch(name, version, signal);
          this.registryRequestDuration.observe({ outcome: found === null ? 'not_found' : 'ok' }, (performance.now() - started) / 1000);
          return found;
        } catch (error) {
          this.registryRequestDuration.observe({ outcome: 'error' }, (performance.now() - started) / 1000);
          this.registryFailures.inc({ reason: (error as { name?: unknown }).name === 'TransientAnalysisError' ? 'transient' : 'other' });
          throw error;
        }
      },
    };
  }

  /** A metadata cache whose lookups count as hits and misses. */
  observeCache(cache: MetadataCache): MetadataCache {
    return {
      getMany: async (keys) => {
        const found = await cache.getMany(keys);
        this.countLookups(found.size, keys.length - found.size);
        return found;
      },
      setMany: (entries) => cache.setMany(entries),
      ...(cache.freshUntil ? { freshUntil: cache.freshUntil.bind(cache) } : {}),
      reused: (count) => {
        this.countLookups(count, 0);
        cache.reused?.(count);
      },
    };
  }

  private countLookups(hits: number, misses: number): void {
    this.hits += hits;
    this.misses += misses;
    this.cacheLookups.inc({ result: 'hit' }, hits);
    this.cacheLookups.inc({ result: 'miss' }, misses);
  }
}
