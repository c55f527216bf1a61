import type { MetadataClient } from '../../model/enrich-types.js';
import { EMPTY_METADATA, supplierOf, type PackageMetadata } from '../../model/metadata.js';
import type { RegistryEndpoint, RegistryHttp } from '../types.js';
import { parseGoMod } from './parse-go-mod.js';
import { GoFileError } from './syntax.js';
import { inInterval } from './version.js';
import { isRecord, text } from '../shared/narrow.js';

/**
 * Module metadata through the Go module proxy protocol (https://go.dev/ref/mod#goproxy-protocol),
 * under the GOPROXY base URL of `PACKAGE_REGISTRIES.go`:
 * - `/<module>/@v/<version>.info` — the version exists; its `Origin` (Go ≥ 1.19 proxies) gives the
 *   repository URL;
 * - `/<module>/@latest` and `/<module>/@v/<latest>.mod` — the latest go.mod is where a module is
 *   deprecated (`// Deprecated:` on its module directive) and where versions are retracted.
 * The proxy serves no license, and reading LICENSE files would mean downloading module zips, so Go
 * licenses stay unknown: never guessed. A missing version (404/410) is null; the HTTP client fails
 * fast (its deadline) on a slow or failing proxy, and the analysis keeps what go.mod recorded.
 */

/** The proxy's case-encoding: every upper-case letter becomes `!` and its lower case. */
export function escapeModulePart(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}

/** https/http/ssh/git URLs only: an Origin is the proxy's word, shown to people as a link. */
function repositoryOf(info: Record<string, unknown>): string | null {
  const origin = info['Origin'];
  if (!isRecord(origin)) return null;
  const url = text(origin['URL']);
  return url !== null && /^(https?|git|ssh):\/\//.test(url) ? url : null;
}

/** The facts of a version's `.info` document, with the deprecation read from the latest go.mod. */
export function goModuleMetadata(info: Record<string, unknown>, deprecated: string | null, module?: string): PackageMetadata {
  return { ...EMPTY_METADATA, repository: repositoryOf(info), deprecated, supplier: supplierOf('organization', module === undefined ? null : moduleOwner(module)) };
}

/** Hosts whose second path element is the account that owns the repository. */
const HOSTED = new Set(['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org']);

/**
 * Who publishes a module, from its path: the account on a code host (`github.com/owner`), else
 * the host whose name is the module's import path (`go.uber.org`, `golang.org`).
 */
export function moduleOwner(module: string): string | null {
  const [host, owner] = module.split('/');
  if (host === undefined || host === '' || !host.includes('.')) return null;
  return HOSTED.has(host.toLowerCase()) && owner !== undefined && owner !== '' ? `${host}/${owner}` : host;
}

async function lifecycle(http: RegistryHttp, moduleUrl: string, version: string, latest: unknown, signal?: AbortSignal): Promise<string | null> {
  const latestVersion = isRecord(latest) ? text(latest['Version']) : null;
  if (latestVersion === null) return null;
  const mod = await http.text(`${moduleUrl}/@v/${encodeURIComponent(escapeModulePart(latestVersion))}.mod`, { signal, accept: 'text/plain' });
  return mod === null ? null : goModDeprecation(mod, version);
}

/** Whether the latest go.mod (its text) retracts `version` or deprecates the module, and why. */
export function goModDeprecation(mod: string, version: string): string | null {
  try {
    const file = parseGoMod(mod);
    const retracted = file.retracts.find((r) => inInterval(version, r.low, r.high));
    if (retracted) return retracted.rationale === '' ? 'retracted' : `retracted: ${retracted.rationale}`;
    return file.deprecated;
  } catch (error) {
    // A go.mod this reader refuses tells nothing about deprecation; the version facts still stand.
    if (error instanceof GoFileError) return null;
    throw error;
  }
}

export function goProxyMetadata(registry: RegistryEndpoint): MetadataClient {
  const base = registry.base.replace(/\/+$/, '');
  return {
    async fetch(name: string, version: string, signal?: AbortSignal): Promise<PackageMetadata | null> {
      const moduleUrl = `${base}/${name.split('/').map((seg) => encodeURIComponent(escapeModulePart(seg))).join('/')}`;
      // `@latest` does not depend on `.info`: both in flight at once, two round trips in all.
      const latest = registry.http.json(`${moduleUrl}/@latest`, { signal });
      // Awaited below unless the version is missing; an early failure must not go unhandled.
      void latest.catch(() => undefined);
      const info = await registry.http.json(`${moduleUrl}/@v/${encodeURIComponent(escapeModulePart(version))}.info`, { signal });
      if (!isRecord(info)) return null;
      return goModuleMetadata(info, await lifecycle(registry.http, moduleUrl, version, await latest, signal), name);
    },
  };
}
