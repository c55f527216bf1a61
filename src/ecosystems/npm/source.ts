import { pipeline, type Readable } from 'node:stream';
import npmFetch from 'npm-registry-fetch';
import getAuth from 'npm-registry-fetch/lib/auth.js';
import pickManifest from 'npm-pick-manifest';
import { request } from 'undici';
import { blockedIn } from '../../net/address-policy.js';
import type { Outgoing } from '../../net/dispatchers.js';
import type { RegistryHttp } from '../types.js';
import { repositoryUrl } from '../../model/metadata.js';
import type { NpmOptions } from './options.js';
import { readTarball, type TarFile, type TarLimits, type TarReadResult } from '../../archives/tar-reader.js';
import { integrityCheck } from '../../archives/integrity.js';
import type { PackageRegistrySource, PackageVersion, VersionLookup } from '../shared/package-source.js';
import { RegistryMalformed, RegistryUnavailable, TarballUnavailable } from '../shared/source-errors.js';
import { RegistryTimeoutError } from '../../model/registry-unreachable.js';

/**
 * npm packages as inventory sources with the user's npm configuration: version resolution from
 * the packument (exact, range or dist-tag), and the tarball as a stream whose integrity is checked
 * while it is read. Requests go through the project's HTTP stack under the address policy, with
 * the credentials npm's own lookup picks for each URL and npm's CAs; a configuration that only
 * npm's fetch stack can honour (proxies, client certificates, a bound local address) goes through
 * npm-registry-fetch, with the tarball's address checked first.
 */

/** The project's HTTP for npm: packuments through `http`, tarballs through `outgoing.following`. */
export interface NpmNet {
  readonly http: RegistryHttp;
  readonly outgoing: Outgoing;
}

/** Whether npm's options ask for what only npm's own fetch stack does (its CAs are the dispatchers' own, see ecosystems/sources.ts). */
function needsNpmFetch(options: NpmOptions): boolean {
  const set = (key: string): boolean => options[key] !== undefined && options[key] !== null && options[key] !== '';
  return ['proxy', 'httpsProxy', 'cert', 'key', 'localAddress', 'forceAuth', 'otp'].some(set) || options['strictSSL'] === false || options['offline'] === true;
}

/** A JSON object (not null, not an array); a plain boolean so that declared types are not narrowed away. */
function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Packument {
  readonly name?: string;
  readonly versions?: Record<string, { dist?: { tarball?: string; integrity?: string; unpackedSize?: number; fileCount?: number } }>;
  readonly 'dist-tags'?: Record<string, string>;
}

function statusOf(error: unknown): number | null {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : null;
}

function escapeName(name: string): string {
  return name.startsWith('@') ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name);
}

/** How long a tarball download may stall between chunks. */
const TARBALL_IDLE_MS = 60_000;

const CORGI = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*';

export class NpmPackageSource implements PackageRegistrySource {
  private readonly packuments = new Map<string, { at: number; value: Promise<Packument | null> }>();
  private readonly options: NpmOptions;

  /** The project's HTTP stack, unless npm's configuration needs npm's own. */
  private readonly plain: NpmNet | null;

  constructor(
    options: NpmOptions,
    private readonly net: NpmNet | null = null,
    private readonly packumentTtlMs = 60_000,
    private readonly timeoutMs = 15_000,
  ) {
    // Short waits between retries: a list request is waiting on this answer.
    const { cache: _httpCache, ...rest } = options;
    this.options = { ...rest, timeout: timeoutMs, retry: { retries: 1, factor: 2, minTimeout: 200, maxTimeout: 1000 } };
    this.plain = net !== null && !needsNpmFetch(options) ? net : null;
  }

  /** The registry of a package, as npm-registry-fetch picks it (its scope's registry, else the configured scope's, else `registry`). */
  private registryFor(name: string): string {
    const scopeRegistry = (scope: unknown): unknown => (typeof scope === 'string' && scope !== '' ? this.options[`${scope.replace(/^@?/, '@')}:registry`] : undefined);
    const picked = (name.startsWith('@') ? scopeRegistry(name.slice(0, name.indexOf('/'))) : undefined) ?? scopeRegistry(this.options['scope']) ?? this.options['registry'];
    if (typeof picked !== 'string' || picked === '') throw new Error('npm configuration has no registry');
    return picked.replace(/\/+$/, '');
  }

  /** The credentials header npm would send to `url` (npm's own lookup: per registry, host and port). */
  private credentials(url: string, spec: string): { authorization?: string } {
    const auth = getAuth(url, { ...this.options, spec });
    if (auth.token !== null) return { authorization: `Bearer ${auth.token}` };
    if (auth.auth !== null) return { authorization: `Basic ${auth.auth}` };
    return {};
  }

  /** A document through the project's HTTP (null: 404/410); any failure is `RegistryUnavailable`. */
  private async plainJson(plain: NpmNet, url: string, spec: string, accept: string): Promise<unknown> {
    try {
      return await plain.http.json(url, { accept, ...this.credentials(url, spec) });
    } catch (error) {
      const blocked = blockedIn(error);
      throw new RegistryUnavailable(blocked === null && error instanceof RegistryTimeoutError, { cause: blocked ?? error });
    }
  }

  /** The abbreviated packument, cached briefly (ranges and tags move; exact versions are looked up by identity first). */
  private packument(name: string): Promise<Packument | null> {
    const cached = this.packuments.get(name);
    if (cached && Date.now() - cached.at < this.packumentTtlMs) return cached.value;
    const plain = this.plain;
    const value = plain !== null ? this.plainJson(plain, `${this.registryFor(name)}/${escapeName(name)}`, name, CORGI).then((doc) => doc as Packument | null) : npmFetch
      .json(`/${escapeName(name)}`, { ...this.options, headers: { accept: CORGI }, spec: name })
      .then((doc) => doc as Packument)
      .catch((error: unknown) => {
        const status = statusOf(error);
        if (status === 404) return null;
        const code = (error as { code?: unknown }).code;
        throw new RegistryUnavailable(code === 'FETCH_ERROR' && String(error).includes('timeout'), { cause: error });
      });
    this.packuments.set(name, { at: Date.now(), value });
    value.catch(() => this.packuments.delete(name));
    if (this.packuments.size > 2000) {
      const oldest = this.packuments.keys().next().value;
      if (oldest !== undefined) this.packuments.delete(oldest);
    }
    return value;
  }

  /**
   * The full packument (every version's manifest, `time`, `dist-tags`): what inspection reads.
   * Null when the registry has no such package; not cached here (the inspection keeps its own).
   */
  async fullPackument(name: string): Promise<unknown> {
    const plain = this.plain;
    if (plain !== null) return this.plainJson(plain, `${this.registryFor(name)}/${escapeName(name)}`, name, 'application/json');
    try {
      return await npmFetch.json(`/${escapeName(name)}`, { ...this.options, headers: { accept: 'application/json' }, spec: name });
    } catch (error) {
      if (statusOf(error) === 404) return null;
      const code = (error as { code?: unknown }).code;
      throw new RegistryUnavailable(code === 'FETCH_ERROR' && String(error).includes('timeout'), { cause: error });
    }
  }

  /** Resolves an exact version, a range or a dist-tag (null: `latest`). */
  async lookup(name: string, spec: string | null): Promise<VersionLookup> {
    const packument = await this.packument(name);
    // A document without versions is an unpublished package; one whose versions are not a map is not a packument.
    if (packument === null || packument.versions === undefined) return { kind: 'no_package' };
    if (!isObject(packument) || !isObject(packument.versions) || (packument['dist-tags'] !== undefined && !isObject(packument['dist-tags']))) {
      throw new RegistryMalformed();
    }
    let manifest;
    try {
      manifest = pickManifest(packument as Parameters<typeof pickManifest>[0], spec ?? 'latest');
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (code === 'ETARGET' || code === 'ENOVERSIONS' || code === 'E403') return { kind: 'no_version' };
      throw new RegistryMalformed({ cause: error });
    }
    const dist = packument.versions[manifest.version]?.dist;
    return {
      kind: 'found',
      version: {
        name,
        version: manifest.version,
        tarball: dist?.tarball ?? null,
        integrity: dist?.integrity ?? null,
        unpackedSize: typeof dist?.unpackedSize === 'number' ? dist.unpackedSize : null,
        fileCount: typeof dist?.fileCount === 'number' ? dist.fileCount : null,
      },
    };
  }

  /** Repository URL and gitHead of a version (the full version document), for recovery guidance. */
  async provenance(name: string, version: string): Promise<{ repoUrl: string | null; gitHead: string | null }> {
    const path = `${escapeName(name)}/${encodeURIComponent(version)}`;
    const spec = `${name}@${version}`;
    try {
      const plain = this.plain;
      const doc = (plain !== null ? await this.plainJson(plain, `${this.registryFor(name)}/${path}`, spec, 'application/json') : await npmFetch.json(`/${path}`, { ...this.options, spec })) as {
        repository?: unknown;
        gitHead?: unknown;
      } | null;
      return { repoUrl: repositoryUrl(doc?.repository), gitHead: typeof doc?.gitHead === 'string' ? doc.gitHead : null };
    } catch {
      return { repoUrl: null, gitHead: null };
    }
  }

  read(version: PackageVersion, limits: TarLimits, onFile: (file: TarFile) => Promise<void>): Promise<TarReadResult> {
    return this.tarball(version).then((stream) => readTarball(stream, limits, onFile));
  }

  /**
   * The tarball, streamed; an integrity mismatch makes the stream fail (EINTEGRITY). A tarball
   * address (or redirect) the address policy refuses is `BlockedAddress`.
   */
  async tarball(version: PackageVersion): Promise<Readable> {
    const url = version.tarball;
    if (url === null) throw new TarballUnavailable(null);
    const spec = `${version.name}@${version.version}`;
    if (this.plain !== null) return this.plainTarball(this.plain, url, spec, version.integrity);
    // npm's fetch stack connects by itself: the packument's address for the tarball is checked first.
    try {
      await this.net?.outgoing.check(url);
    } catch (error) {
      throw blockedIn(error) ?? new RegistryUnavailable(false, { cause: error });
    }
    try {
      const res = await npmFetch(url, { ...this.options, spec, ...(version.integrity === null ? {} : { integrity: version.integrity }) });
      return res.body as unknown as Readable;
    } catch (error) {
      const status = statusOf(error);
      if (status === 404 || status === 410 || status === 451) throw new TarballUnavailable(status);
      throw new RegistryUnavailable(false, { cause: error });
    }
  }

  private async plainTarball(plain: NpmNet, url: string, spec: string, integrity: string | null): Promise<Readable> {
    let response;
    try {
      // Every redirect hop is under the address policy; the credentials go no further than their origin.
      response = await request(url, {
        dispatcher: plain.outgoing.following,
        headers: { 'user-agent': 'pkgscope', ...this.credentials(url, spec) },
        headersTimeout: this.timeoutMs,
        bodyTimeout: TARBALL_IDLE_MS,
      });
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      throw blockedIn(error) ?? new RegistryUnavailable(code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT', { cause: error });
    }
    const { statusCode, body } = response;
    if (statusCode < 200 || statusCode >= 300) {
      await body.dump();
      if (statusCode === 404 || statusCode === 410 || statusCode === 451) throw new TarballUnavailable(statusCode);
      throw new RegistryUnavailable(false, { cause: new Error(`registry answered ${statusCode}`) });
    }
    if (integrity === null) return body;
    // pipeline carries a failure of the download into the checked stream the reader consumes.
    return pipeline(body, integrityCheck(integrity), () => undefined);
  }
}
