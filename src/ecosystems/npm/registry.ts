import type NpmFetch from 'npm-registry-fetch';
import type GetAuth from 'npm-registry-fetch/lib/auth.js';
import type { RegistryHttp } from '../types.js';
import type { MetadataClient } from '../../model/enrich-types.js';
import { metadataFromManifest, type PackageMetadata } from '../../model/metadata.js';
import { TransientAnalysisError } from '../../model/types.js';
import { lazily } from '../../model/lazy-require.js';
import { RegistryResponseError } from '../shared/http.js';
import type { NpmOptions } from './options.js';

function status(error: unknown): number | null {
  const code = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === 'number' ? code : null;
}

/** Whether npm's options ask for nothing but registries, credentials and CAs: no proxy, client certificate or bound address. */
function plainHttpWill(options: NpmOptions): boolean {
  const set = (key: string): boolean => options[key] !== undefined && options[key] !== null && options[key] !== '';
  return !['proxy', 'httpsProxy', 'cert', 'key', 'localAddress', 'forceAuth', 'otp'].some(set) && options['strictSSL'] !== false && options['offline'] !== true;
}

/** The certificate authorities npm's `ca` setting names (replacing the default ones), or null. */
function caOf(options: NpmOptions): string | readonly string[] | null {
  const ca = options['ca'];
  if (typeof ca === 'string' && ca !== '') return ca;
  return Array.isArray(ca) && ca.length > 0 && ca.every((c) => typeof c === 'string') ? ca : null;
}

/** The plain HTTP client for npm registries trusting these CAs (null: the default ones). */
export type PlainHttpFor = (ca: string | readonly string[] | null) => RegistryHttp;

/**
 * Registry metadata with the user's npm options (registry, scoped registries, credentials,
 * retries, proxies). Asks for the version document first; registries without that endpoint
 * answer 404/405, and then the packument is read instead.
 *
 * Given `plainHttpFor` (undici clients like those of the other registries), a request that needs
 * only a registry address, npm's CAs and npm's credentials for it (chosen by npm-registry-fetch's
 * own lookup) goes through it; anything else (proxies, client certificates, one-time passwords,
 * a bound local address) goes through npm-registry-fetch itself. npm's fetch stack costs about 2.5 ms of CPU per request,
 * which made the CPU, not the registry, the limit of a cold 2,700-coordinate run.
 */
export function npmMetadataClient(options: NpmOptions | (() => Promise<NpmOptions>), timeoutMs = 30_000, plainHttpFor: PlainHttpFor | null = null): MetadataClient {
  // The options and npm's fetch are loaded with the first fetch: a warm cache needs neither.
  let ready:
    | Promise<{ readonly base: NpmOptions; readonly npmFetch: () => Promise<typeof NpmFetch>; readonly getAuth: typeof GetAuth; readonly http: RegistryHttp | null }>
    | undefined;
  const prepare = async () => {
    const [resolved, { default: getAuth }] = await Promise.all([typeof options === 'function' ? options() : options, import('npm-registry-fetch/lib/auth.js')]);
    // npm's fetch stack (about 60 ms to load) only for what the plain client does not take.
    const npmFetch = lazily(() => import('npm-registry-fetch').then((m) => m.default));
    // npm's own retry settings wait 10 to 60 s between attempts: right for an install, too slow for
    // one coordinate's metadata. Keep the user's retry count (at most 2) with short waits.
    const userRetry = (resolved['retry'] ?? {}) as { retries?: number };
    const retry = { retries: Math.min(userRetry.retries ?? 2, 2), factor: 2, minTimeout: 250, maxTimeout: 2_000 };
    const http = plainHttpFor !== null && plainHttpWill(resolved) ? plainHttpFor(caOf(resolved)) : null;
    return { base: { ...resolved, timeout: timeoutMs, retry }, npmFetch, getAuth, http };
  };
  /** The credentials header npm would send to `url`; undefined when npm's own fetch must go (client certificates). */
  const credentials = (url: string, base: NpmOptions, getAuth: typeof GetAuth): { authorization?: string } | undefined => {
    const auth = getAuth(url, base);
    if (auth.cert !== null || auth.key !== null) return undefined;
    if (auth.token !== null) return { authorization: `Bearer ${auth.token}` };
    if (auth.auth !== null) return { authorization: `Basic ${auth.auth}` };
    return {};
  };
  /** Per registry: its credentials, or 'per-package' when one is configured below its address. */
  const byRegistry = new Map<string, { readonly headers: { authorization?: string } | undefined } | 'per-package'>();
  /**
   * The credentials for a package URL under `registry`. npm's lookup walks the URL's path up to its
   * host, so every package of a registry gets what its registry address gets, unless a credential
   * is configured for a path below that address: then each URL is looked up (about 30 µs each,
   * 70 ms of a cold 2,300-package run when repeated for every package).
   */
  const credentialsUnder = (registry: string, packageUrl: string, base: NpmOptions, getAuth: typeof GetAuth): { authorization?: string } | undefined => {
    let known = byRegistry.get(registry);
    if (known === undefined) {
      const address = new URL(`${registry}/`);
      const below = `//${address.host}${address.pathname}`;
      const deeper = Object.keys(base).some((key) => key.startsWith(below) && key.length > below.length && !key.startsWith(':', below.length));
      known = deeper ? 'per-package' : { headers: credentials(`${registry}/`, base, getAuth) };
      byRegistry.set(registry, known);
    }
    return known === 'per-package' ? credentials(packageUrl, base, getAuth) : known.headers;
  };
  /** GET through `http`: the document, null when absent (404, 410, and 405 from registries without the endpoint). */
  const plainJson = async (http: RegistryHttp, url: string, headers: { authorization?: string }, signal: AbortSignal | undefined): Promise<unknown> => {
    try {
      return await http.json(url, { ...headers, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (error instanceof RegistryResponseError && error.status === 405) return null;
      throw error;
    }
  };
  /**
   * The registry a package's metadata comes from, chosen as npm-registry-fetch's pickRegistry
   * does (the package's scope registry, else that of the configured `scope`, else `registry`).
   * Asking with an absolute URL and no `spec` spares npm-package-arg's parse of `name@version`
   * per request, which tries the spec as a git URL first (about 0.2 ms of CPU each).
   */
  const registryFor = (name: string, base: NpmOptions): string => {
    const scopeOf = (scope: string): unknown => base[`${scope.replace(/^@?/, '@')}:registry`];
    const configured = typeof base['scope'] === 'string' && base['scope'] !== '' ? scopeOf(base['scope']) : undefined;
    const picked = (name.startsWith('@') ? scopeOf(name.slice(0, name.indexOf('/'))) : undefined) ?? configured ?? base['registry'];
    if (typeof picked !== 'string' || picked === '') throw new Error('npm configuration has no registry');
    return picked.replace(/\/+$/, '');
  };
  return {
    async fetch(name, version, signal) {
      const { base, npmFetch, getAuth, http } = await (ready ??= prepare());
      const escaped = name.startsWith('@') ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name);
      const registry = registryFor(name, base);
      const packageUrl = `${registry}/${escaped}`;
      const headers = http !== null ? credentialsUnder(registry, packageUrl, base, getAuth) : undefined;
      if (http !== null && headers !== undefined) {
        const document = await plainJson(http, `${packageUrl}/${encodeURIComponent(version)}`, headers, signal);
        if (document !== null) return metadataFromManifest(document);
        return fromPackument(await plainJson(http, packageUrl, headers, signal), version);
      }
      const opts = signal ? { ...base, signal } : base;
      const npm = await npmFetch();
      try {
        return metadataFromManifest(await npm.json(`${packageUrl}/${encodeURIComponent(version)}`, opts));
      } catch (error) {
        const code = status(error);
        if (code !== 404 && code !== 405) throw classify(error);
      }
      try {
        return fromPackument(await npm.json(packageUrl, opts), version);
      } catch (error) {
        if (status(error) === 404) return null;
        throw classify(error);
      }
    },
  };
}

/** One version's metadata from a packument; null when the packument (or the version) is absent. */
function fromPackument(packument: unknown, version: string): PackageMetadata | null {
  const versions = (packument as { versions?: Record<string, unknown> } | null)?.versions ?? {};
  return version in versions ? metadataFromManifest(versions[version]) : null;
}

function classify(error: unknown): Error {
  const code = status(error);
  if (code === null || code >= 500 || code === 429) {
    return new TransientAnalysisError('registry request failed', { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}
