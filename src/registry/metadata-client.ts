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
  return {
    async fetch(name, version, signal) {
      const { base, npmFetch } = await (ready ??= prepare());
      const escaped = name.startsWith('@') ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name);
      const opts = { ...base, spec: `${name}@${version}`, ...(signal ? { signal } : {}) };
      try {
        return metadataFromManifest(await npmFetch.json(`/${escaped}/${encodeURIComponent(version)}`, opts));
      } catch (error) {
        const code = status(error);
        if (code !== 404 && code !== 405) throw classify(error);
      }
      try {
        const packument = await npmFetch.json(`/${escaped}`, opts);
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
