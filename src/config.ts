import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, EnvReader, redactUrl, type Env } from './config-env.js';
import { LOG_LEVELS, type LogLevel } from './log-levels.js';
import { DEFAULT_PACKAGE_REGISTRIES, REGISTRY_KEYS, type RegistryKey } from './ecosystems/registries.js';
import { GIT_HOST_KINDS, type GitHostKind } from './inventory/sources/git-hosts.js';
import type { RateLimitConfig } from './http/rate-limit.js';
import { OSV_ECOSYSTEMS } from './advisories/ecosystems.js';

export { ConfigError, redactUrl };

/**
 * Configuration: the environment, parsed once into a typed, frozen object.
 * Start-up fails with one ConfigError that lists every invalid variable.
 */

/**
 * Defaults sized from the machine: an analysis thread per core, and twice as many jobs per
 * worker process as cores, at least 4 (a job spends much of its time waiting on Postgres, Redis
 * and registries, not computing).
 */
const CORES = Math.max(1, availableParallelism());
export const DEFAULT_ANALYSIS_THREADS = Math.min(64, Math.max(2, CORES));

/**
 * Registry requests in flight per service process: a fleet's workers share one registry. The CLI,
 * one process on one machine, asks for more at once, which is what bounds a cold run against a
 * distant registry: 128, between yarn's 50 and bun's 256 (a cold 2,300-package run against a
 * registry 20 ms away took 1.7 s with 64 and 1.3 s with 128 here). REGISTRY_CONCURRENCY lowers it
 * for a registry that throttles.
 */
export const SERVICE_REGISTRY_CONCURRENCY = 32;
export const CLI_REGISTRY_CONCURRENCY = 128;
const registryConcurrency = (set: number | null): Config['registryConcurrency'] => ({ service: set ?? SERVICE_REGISTRY_CONCURRENCY, cli: set ?? CLI_REGISTRY_CONCURRENCY });
const DEFAULT_WORKER_CONCURRENCY = Math.min(256, Math.max(4, CORES * 2));
export { LOG_LEVELS, type LogLevel };

export { GIT_HOST_KINDS, type GitHostKind };
export type { RateLimitConfig };

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** Prefix of every Redis key and channel this deployment uses (BullMQ queues included). */
  readonly redisPrefix: string;
  readonly authBootstrapToken: string | null;
  readonly termsUrl: string | null;
  readonly termsAcceptanceUrl: string | null;
  readonly jobTtlSeconds: number;
  readonly jobMaxAttempts: number;
  /** First delay before a job whose worker crashed runs again (doubles per attempt). */
  readonly jobCrashBackoffMs: number;
  readonly cursorSecret: string | null;
  readonly workerConcurrency: number;
  readonly shutdownGraceMs: number;
  readonly logLevel: LogLevel;
  /** BullMQ lock of an active job; a crashed worker's job is taken over after about this long. */
  readonly jobLockMs: number;
  readonly reconcileIntervalMs: number;
  /** An unfinished job untouched this long with no live queue entry is enqueued again. */
  readonly reconcileGraceMs: number;
  readonly expiryIntervalMs: number;
  readonly sseHeartbeatMs: number;
  /** How long an API process answers a job's status polls from memory before reading Postgres again; 0: every poll reads. */
  readonly jobStatusFreshMs: number;
  readonly sbomSyncTimeoutMs: number;
  readonly sbomMaxOutputBytes: number;
  /** At most `uploadLargeConcurrency` upload bodies over `uploadLargeBodyBytes` are read at once per API process; others wait up to `uploadLargeWaitMs`, then get a 503. */
  readonly uploadLargeBodyBytes: number;
  readonly uploadLargeConcurrency: number;
  readonly uploadLargeWaitMs: number;
  /** The analysis thread pool of each API and worker process (see README, "Hostile input and limits"). */
  readonly analysis: {
    readonly threads: number;
    readonly maxQueue: number;
    readonly timeLimitMs: number;
    readonly maxHeapMb: number;
  };
  readonly resolutionTimeoutMs: number;
  /** How long past its `wait_timeout_ms` a list, grep or compare may take to resolve its target before answering 504. */
  readonly listDeadlineGraceMs: number;
  /**
   * Concurrent registry requests per process for metadata enrichment: REGISTRY_CONCURRENCY for
   * both when set, else SERVICE_REGISTRY_CONCURRENCY in the service and CLI_REGISTRY_CONCURRENCY
   * in the CLI.
   */
  readonly registryConcurrency: { readonly service: number; readonly cli: number };
  /** Minimum spacing of progress writes of one job (phase changes are written at once). */
  readonly progressIntervalMs: number;
  /** Files above this size are listed without content. */
  readonly inventoryMaxFileBytes: number;
  /** An archive expanding beyond this fails its preparation. */
  readonly inventoryMaxTotalBytes: number;
  /** A failed preparation is retried by a request arriving this long after the failure. */
  readonly inventoryRetryMs: number;
  /** Path bounds of archive entries: longer or deeper paths, and paths past the folder count, are skipped and noted. */
  readonly inventoryMaxPathBytes: number;
  readonly inventoryMaxPathDepth: number;
  readonly inventoryMaxDirectories: number;
  /** Bytes of inventory indexes an API process keeps in memory (an estimate of what they hold). */
  readonly inventoryCatalogMaxBytes: number;
  /** Requests may use an authenticated token for this long without it being looked up again. */
  readonly authCacheMs: number;
  readonly gitHosts: Readonly<Record<GitHostKind, string>>;
  /** Base URLs of the registries of every ecosystem but npm (`PACKAGE_REGISTRIES`). */
  readonly packageRegistries: Readonly<Record<RegistryKey, string>>;
  /**
   * Repositories an uploaded POM may declare that resolution searches (`MAVEN_ALLOWED_REPOSITORIES`,
   * comma-separated URL prefixes); any other declared repository is never contacted.
   */
  readonly mavenAllowedRepositories: readonly string[];
  /** Bare repository caches of the workers (one per repository, most recently used kept). */
  readonly gitCacheDir: string;
  readonly gitTimeoutMs: number;
  /** How long the API reuses a repository's `ls-remote` answer. */
  readonly gitRefsTtlMs: number;
  /** Refs of a repository read from `ls-remote` at most; a ref past them is asked of the host by name. */
  readonly gitMaxRefs: number;
  readonly siteAllowPrivateAddresses: boolean;
  /** Let package targets' fetches reach private addresses beyond the configured registries (`REGISTRY_ALLOW_PRIVATE_ADDRESSES`). */
  readonly registryAllowPrivateAddresses: boolean;
  /** Stored pages older than this are re-crawled in the background on the next request. */
  readonly siteRefreshMs: number;
  readonly crawl: CrawlConfig;
  readonly ops: OpsConfig;
  /** Trust X-Forwarded-For from this many proxy hops (the client address rate limits key on). */
  readonly trustProxyHops: number;
  readonly rateLimit: RateLimitConfig;
  readonly advisories: AdvisoryConfig;
}

/** The advisory mirror (`ADVISORY_*`, see src/advisories/sync.ts). */
export interface AdvisoryConfig {
  /** Base URL of an OSV bulk layout (`<base>/<Ecosystem>/all.zip`); null: advisories are not synced. */
  readonly dbUrl: string | null;
  /** OSV ecosystem names synced, as OSV spells them. */
  readonly ecosystems: readonly string[];
  readonly syncIntervalMs: number;
}

/** OSV's public bulk download (not a package registry): `<base>/<Ecosystem>/all.zip`. */
export const DEFAULT_ADVISORY_DB_URL = 'https://osv-vulnerabilities.storage.googleapis.com';

/**
 * `ADVISORY_DB_URL` unset: OSV's bulk download; set empty or `off`: disabled. `ADVISORY_ECOSYSTEMS`
 * (comma-separated, any case) narrows the ecosystems; a name pkgscope does not know is kept as
 * given, so its sync fails visibly (`GET /v1/advisories` shows it `failed` with the reason).
 */
function advisorySettings(env: Env, r: EnvReader): AdvisoryConfig {
  const raw = env['ADVISORY_DB_URL'];
  const off = raw !== undefined && (raw.trim() === '' || raw.trim().toLowerCase() === 'off');
  const dbUrl = off ? null : r.url('ADVISORY_DB_URL', DEFAULT_ADVISORY_DB_URL, ['http:', 'https:']).replace(/\/+$/, '');
  const listed = r.string('ADVISORY_ECOSYSTEMS', '', /^[A-Za-z0-9 ._:,-]{0,1000}$/, 'comma-separated OSV ecosystem names');
  const names = listed
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '')
    .map((n) => OSV_ECOSYSTEMS.find((known) => known.toLowerCase() === n.toLowerCase()) ?? n);
  return Object.freeze({
    dbUrl,
    ecosystems: Object.freeze(names.length === 0 ? [...OSV_ECOSYSTEMS] : [...new Set(names)]),
    syncIntervalMs: r.integer('ADVISORY_SYNC_INTERVAL_MS', 3_600_000, 1_000, 604_800_000),
  });
}

export interface OpsConfig {
  /** A separate port for metrics and the queue dashboard; null serves them on the API port (token required). */
  readonly port: number | null;
  readonly host: string;
  /** Bearer (or Basic password) for the ops endpoints; required on the API port. */
  readonly token: string | null;
  /** Let the queue dashboard retry, promote and remove jobs (read-only otherwise). */
  readonly queuesWritable: boolean;
  /** How often a worker publishes its metrics to Redis, where every API's `/metrics` reads them. */
  readonly metricsPublishMs: number;
}

export interface CrawlConfig {
  readonly maxPages: number;
  readonly maxDepth: number;
  readonly maxPageBytes: number;
  readonly maxDurationMs: number;
  /** Time one page's HTML-to-Markdown conversion may take on its thread; a slower page is skipped. */
  readonly pageTimeLimitMs: number;
  readonly hostConcurrency: number;
  readonly fetchTimeoutMs: number;
  /** Bytes of robots.txt read; the rest is ignored (500 KiB, as Google does). */
  readonly maxRobotsBytes: number;
  /** Page URLs taken from sitemaps per crawl (default four times maxPages); the rest are not queued. */
  readonly maxSitemapUrls: number;
  /** Bytes of one sitemap read; the rest of it is ignored. */
  readonly maxSitemapBytes: number;
}

const DEFAULT_GIT_HOSTS: Record<GitHostKind, string> = {
  github: 'https://github.com',
  gitlab: 'https://gitlab.com',
  bitbucket: 'https://bitbucket.org',
};


/** RFC 6750 b64token: what a bearer token may contain. */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

export function loadConfig(env: Env = process.env): Config {
  const r = new EnvReader(env);
  const sitePages = r.integer('SITE_MAX_PAGES', 1_000, 1, 100_000);
  const config: Config = {
    port: r.integer('PORT', 8080, 0, 65535),
    host: r.string('HOST', '127.0.0.1'),
    databaseUrl: r.url('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/pkgscope', ['postgres:', 'postgresql:']),
    redisUrl: r.url('REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    redisPrefix: r.string('REDIS_PREFIX', 'pkgscope', /^[A-Za-z0-9_.:-]{1,64}$/, 'letters, digits, _ . : - (at most 64)'),
    authBootstrapToken: r.optionalString(
      'AUTH_BOOTSTRAP_TOKEN',
      BEARER_TOKEN,
      'a bearer token (letters, digits and -._~+/ with trailing =)',
    ),
    termsUrl: r.optionalUrl('TERMS_URL', ['http:', 'https:']),
    termsAcceptanceUrl: r.optionalUrl('TERMS_ACCEPTANCE_URL', ['http:', 'https:']),
    jobTtlSeconds: r.integer('JOB_TTL_SECONDS', 86_400, 60, 31_536_000),
    jobMaxAttempts: r.integer('JOB_MAX_ATTEMPTS', 3, 1, 20),
    jobCrashBackoffMs: r.integer('JOB_CRASH_BACKOFF_MS', 1_000, 0, 600_000),
    cursorSecret: r.optionalString('CURSOR_SECRET', /^.{32,}$/, 'at least 32 characters'),
    workerConcurrency: r.integer('WORKER_CONCURRENCY', DEFAULT_WORKER_CONCURRENCY, 1, 256),
    shutdownGraceMs: r.integer('SHUTDOWN_GRACE_MS', 25_000, 0, 600_000),
    logLevel: r.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    jobLockMs: r.integer('JOB_LOCK_MS', 30_000, 1_000, 600_000),
    reconcileIntervalMs: r.integer('RECONCILE_INTERVAL_MS', 30_000, 100, 3_600_000),
    reconcileGraceMs: r.integer('RECONCILE_GRACE_MS', 60_000, 0, 86_400_000),
    expiryIntervalMs: r.integer('EXPIRY_INTERVAL_MS', 60_000, 100, 86_400_000),
    sseHeartbeatMs: r.integer('SSE_HEARTBEAT_MS', 15_000, 100, 300_000),
    jobStatusFreshMs: r.integer('JOB_STATUS_FRESH_MS', 1_000, 0, 60_000),
    sbomSyncTimeoutMs: r.integer('SBOM_SYNC_TIMEOUT_MS', 60_000, 100, 600_000),
    sbomMaxOutputBytes: r.integer('SBOM_MAX_OUTPUT_BYTES', 16_777_216, 1_024, 16_777_216),
    uploadLargeBodyBytes: r.integer('UPLOAD_LARGE_BODY_BYTES', 8 * 1024 * 1024, 1_024, 1024 * 1024 * 1024),
    uploadLargeConcurrency: r.integer('UPLOAD_LARGE_CONCURRENCY', 2, 1, 64),
    uploadLargeWaitMs: r.integer('UPLOAD_LARGE_WAIT_MS', 2_000, 0, 60_000),
    analysis: {
      threads: r.integer('ANALYSIS_THREADS', DEFAULT_ANALYSIS_THREADS, 1, 64),
      maxQueue: r.integer('ANALYSIS_MAX_QUEUE', 64, 0, 100_000),
      timeLimitMs: r.integer('ANALYSIS_TIME_LIMIT_MS', 30_000, 100, 3_600_000),
      maxHeapMb: r.integer('ANALYSIS_MAX_HEAP_MB', 512, 64, 65_536),
    },
    resolutionTimeoutMs: r.integer('RESOLUTION_TIMEOUT_MS', 60_000, 100, 600_000),
    listDeadlineGraceMs: r.integer('LIST_DEADLINE_GRACE_MS', 20_000, 100, 600_000),
    registryConcurrency: registryConcurrency(r.optionalInteger('REGISTRY_CONCURRENCY', 1, 256)),
    progressIntervalMs: r.integer('PROGRESS_INTERVAL_MS', 250, 0, 60_000),
    inventoryMaxFileBytes: r.integer('INVENTORY_MAX_FILE_BYTES', 16 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    inventoryMaxTotalBytes: r.integer('INVENTORY_MAX_TOTAL_BYTES', 512 * 1024 * 1024, 1024, 8 * 1024 * 1024 * 1024),
    inventoryRetryMs: r.integer('INVENTORY_RETRY_MS', 600_000, 0, 86_400_000),
    // Postgres refuses a primary-key entry over about 2.7 KB: paths stay below it.
    inventoryMaxPathBytes: r.integer('INVENTORY_MAX_PATH_BYTES', 2_048, 64, 2_048),
    inventoryMaxPathDepth: r.integer('INVENTORY_MAX_PATH_DEPTH', 64, 4, 512),
    inventoryMaxDirectories: r.integer('INVENTORY_MAX_DIRECTORIES', 100_000, 100, 1_000_000),
    inventoryCatalogMaxBytes: r.integer('INVENTORY_CATALOG_MAX_BYTES', 256 * 1024 * 1024, 1024 * 1024, 16 * 1024 * 1024 * 1024),
    authCacheMs: r.integer('AUTH_CACHE_MS', 2_000, 0, 300_000),
    gitHosts: r.urlMap('GIT_HOSTS', GIT_HOST_KINDS, DEFAULT_GIT_HOSTS, ['http:', 'https:', 'file:']),
    packageRegistries: r.urlMap('PACKAGE_REGISTRIES', REGISTRY_KEYS, DEFAULT_PACKAGE_REGISTRIES, ['http:', 'https:']),
    mavenAllowedRepositories: r.urlList('MAVEN_ALLOWED_REPOSITORIES', ['http:', 'https:']),
    gitCacheDir: r.string('GIT_CACHE_DIR', join(tmpdir(), 'pkgscope-git')),
    gitTimeoutMs: r.integer('GIT_TIMEOUT_MS', 120_000, 1_000, 3_600_000),
    gitRefsTtlMs: r.integer('GIT_REFS_TTL_MS', 30_000, 0, 3_600_000),
    gitMaxRefs: r.integer('GIT_MAX_REFS', 20_000, 100, 10_000_000),
    siteAllowPrivateAddresses: r.boolean('SITE_ALLOW_PRIVATE_ADDRESSES', false),
    registryAllowPrivateAddresses: r.boolean('REGISTRY_ALLOW_PRIVATE_ADDRESSES', false),
    siteRefreshMs: r.integer('SITE_REFRESH_MS', 86_400_000, 0, 31_536_000_000),
    crawl: {
      maxPages: sitePages,
      maxDepth: r.integer('SITE_MAX_DEPTH', 10, 0, 100),
      maxPageBytes: r.integer('SITE_MAX_PAGE_BYTES', 5 * 1024 * 1024, 1_024, 64 * 1024 * 1024),
      maxDurationMs: r.integer('SITE_CRAWL_TIMEOUT_MS', 600_000, 1_000, 86_400_000),
      hostConcurrency: r.integer('SITE_HOST_CONCURRENCY', 2, 1, 16),
      fetchTimeoutMs: r.integer('SITE_FETCH_TIMEOUT_MS', 15_000, 100, 120_000),
      pageTimeLimitMs: r.integer('SITE_PAGE_TIME_LIMIT_MS', 10_000, 100, 600_000),
      maxRobotsBytes: r.integer('SITE_MAX_ROBOTS_BYTES', 512_000, 1_024, 8 * 1024 * 1024),
      maxSitemapUrls: r.optionalInteger('SITE_MAX_SITEMAP_URLS', 1, 10_000_000) ?? 4 * sitePages,
      maxSitemapBytes: r.integer('SITE_MAX_SITEMAP_BYTES', 5 * 1024 * 1024, 1_024, 64 * 1024 * 1024),
    },
    ops: {
      port: r.optionalInteger('OPS_PORT', 1, 65534),
      host: r.string('OPS_HOST', '127.0.0.1'),
      token: r.optionalString('OPS_TOKEN', /^[A-Za-z0-9\-._~+/]{16,}=*$/, 'at least 16 token characters (letters, digits, -._~+/)'),
      queuesWritable: r.boolean('OPS_QUEUES_WRITABLE', false),
      metricsPublishMs: r.integer('METRICS_PUBLISH_INTERVAL_MS', 5_000, 100, 300_000),
    },
    trustProxyHops: r.integer('TRUST_PROXY_HOPS', 0, 0, 10),
    rateLimit: {
      perAccount: r.integer('RATE_LIMIT_PER_ACCOUNT', 600, 0, 1_000_000),
      unauthenticated: r.integer('RATE_LIMIT_UNAUTHENTICATED', 60, 1, 1_000_000),
      windowMs: r.integer('RATE_LIMIT_WINDOW_MS', 60_000, 1_000, 86_400_000),
    },
    advisories: advisorySettings(env, r),
  };
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return Object.freeze({
    ...config,
    gitHosts: Object.freeze(config.gitHosts),
    packageRegistries: Object.freeze(config.packageRegistries),
    mavenAllowedRepositories: Object.freeze(config.mavenAllowedRepositories),
    crawl: Object.freeze(config.crawl),
    ops: Object.freeze(config.ops),
    rateLimit: Object.freeze(config.rateLimit),
  });
}

/** `PACKAGE_REGISTRIES` alone, for the CLI (which reads no other service setting). */
export function packageRegistriesFrom(env: Env): Readonly<Record<RegistryKey, string>> {
  return registrySettingsFrom(env).packageRegistries;
}

/** `PACKAGE_REGISTRIES` and `MAVEN_ALLOWED_REPOSITORIES`, for the CLI. */
export function registrySettingsFrom(env: Env): Pick<Config, 'packageRegistries' | 'mavenAllowedRepositories'> {
  const r = new EnvReader(env);
  const packageRegistries = r.urlMap('PACKAGE_REGISTRIES', REGISTRY_KEYS, DEFAULT_PACKAGE_REGISTRIES, ['http:', 'https:']);
  const mavenAllowedRepositories = r.urlList('MAVEN_ALLOWED_REPOSITORIES', ['http:', 'https:']);
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return { packageRegistries: Object.freeze(packageRegistries), mavenAllowedRepositories: Object.freeze(mavenAllowedRepositories) };
}
