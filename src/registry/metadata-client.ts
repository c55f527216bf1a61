import type NpmFetch from 'npm-registry-fetch';
import type { MetadataClient } from '../sbom/enrich-types.js';
import { metadataFromManifest } from '../sbom/metadata.js';
import { TransientAnalysisError } from '../sbom/types.js';
import type { NpmOptions } from './npm-options.js';


function status(error: unknown): number | null {
  const code = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === 'number' ? code : null;
}

/**
 * npm-registry-fetch with the user's npm options (registry, scoped registries, auth, retries,
 * proxies). Asks for the version document first; registries without that endpoint answer
 * 404/405, and then the packument is read instead.
 */
export function npmMetadataClient(options: NpmOptions | (() => Promise<NpmOptions>), timeoutMs = 30_000): MetadataClient {
  // The options and npm's fetch are loaded with the first fetch: a warm cache needs neither.
  let ready: Promise<{ readonly base: NpmOptions; readonly npmFetch: typeof NpmFetch }> | undefined;
  const prepare = async () => {
    const [resolved, { default: npmFetch }] = await Promise.all([typeof options === 'function' ? options() : options, import('npm-registry-fetch')]);
    // npm's own retry settings wait 10 to 60 s between attempts: right for an install, too slow for
    // one coordinate's metadata. Keep the user's retry count (at most 2) with short waits.
    const userRetry = (resolved['retry'] ?? {}) as { retries?: number };
    const retry = { retries: Math.min(userRetry.retries ?? 2, 2), factor: 2, minTimeout: 250, maxTimeout: 2_000 };
    return { base: { ...resolved, timeout: timeoutMs, retry }, npmFetch };
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
      const { base, npmFetch } = await (ready ??= prepare());
      const escaped = name.startsWith('@') ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name);
      const opts = signal ? { ...base, signal } : base;
      const packageUrl = `${registryFor(name, base)}/${escaped}`;
      try {
        return metadataFromManifest(await npmFetch.json(`${packageUrl}/${encodeURIComponent(version)}`, opts));
      } catch (error) {
        const code = status(error);
        if (code !== 404 && code !== 405) throw classify(error);
      }
      try {
        const packument = await npmFetch.json(packageUrl, opts);
        const versions = (packument as { versions?: Record<string, unknown> }).versions ?? {};
        return version in versions ? metadataFromManifest(versions[version]) : null;
      } catch (error) {
        if (status(error) === 404) return null;
        throw classify(error);
      }
    },
  };
}

function classify(error: unknown): Error {
  const code = status(error);
  if (code === null || code >= 500 || code === 429) {
    return new TransientAnalysisError('registry request failed', { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}
