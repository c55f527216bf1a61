import type { Readable } from 'node:stream';
import npmFetch from 'npm-registry-fetch';
import pickManifest from 'npm-pick-manifest';
import { repositoryUrl } from '../../sbom/metadata.js';
import type { NpmOptions } from '../../registry/npm-options.js';
import { readTarball, type TarFile, type TarLimits, type TarReadResult } from '../tar-reader.js';
import type { PackageRegistrySource, PackageVersion, VersionLookup } from './registry-source.js';

/**
 * npm packages as inventory sources, through npm's own client libraries with the user's npm
 * configuration: version resolution from the packument (exact, range or dist-tag), and the
 * tarball as a stream whose integrity is checked while it is read.
 */

/** The registry could not be asked (network, 5xx, timeout): not an answer about the package. */
export class RegistryUnavailable extends Error {
  constructor(readonly timedOut: boolean, options?: ErrorOptions) {
    super(timedOut ? 'the registry did not answer in time' : 'the registry could not be reached', options);
    this.name = 'RegistryUnavailable';
  }
}

/** The registry answered with a document this client cannot read (e.g. `versions` not an object). */
export class RegistryMalformed extends Error {
  constructor(options?: ErrorOptions) {
    super('the registry answered with a malformed package document', options);
    this.name = 'RegistryMalformed';
  }
}

/** A JSON object (not null, not an array); a plain boolean so that declared types are not narrowed away. */
function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The tarball is gone (404/410) or the version has none: a package-owned inventory cannot be made. */
export class TarballUnavailable extends Error {
  constructor(readonly status: number | null) {
    super('the package tarball is not available');
    this.name = 'TarballUnavailable';
  }
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

const CORGI = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*';

export class NpmPackageSource implements PackageRegistrySource {
  private readonly packuments = new Map<string, { at: number; value: Promise<Packument | null> }>();
  private readonly options: NpmOptions;

  constructor(
    options: NpmOptions,
    private readonly packumentTtlMs = 60_000,
    private readonly timeoutMs = 15_000,
  ) {
    // Short waits between retries: a list request is waiting on this answer.
    const { cache: _httpCache, ...rest } = options;
    this.options = { ...rest, timeout: timeoutMs, retry: { retries: 1, factor: 2, minTimeout: 200, maxTimeout: 1000 } };
  }

  /** The abbreviated packument, cached briefly (ranges and tags move; exact versions are looked up by identity first). */
  private packument(name: string): Promise<Packument | null> {
    const cached = this.packuments.get(name);
    if (cached && Date.now() - cached.at < this.packumentTtlMs) return cached.value;
    const value = npmFetch
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
    try {
      const doc = (await npmFetch.json(`/${escapeName(name)}/${encodeURIComponent(version)}`, { ...this.options, spec: `${name}@${version}` })) as {
        repository?: unknown;
        gitHead?: unknown;
      };
      return { repoUrl: repositoryUrl(doc.repository), gitHead: typeof doc.gitHead === 'string' ? doc.gitHead : null };
    } catch {
      return { repoUrl: null, gitHead: null };
    }
  }

  read(version: PackageVersion, limits: TarLimits, onFile: (file: TarFile) => Promise<void>): Promise<TarReadResult> {
    return this.tarball(version).then((stream) => readTarball(stream, limits, onFile));
  }

  /** The tarball, streamed; an integrity mismatch makes the stream fail (EINTEGRITY). */
  async tarball(version: PackageVersion): Promise<Readable> {
    if (version.tarball === null) throw new TarballUnavailable(null);
    try {
      const res = await npmFetch(version.tarball, {
        ...this.options,
        spec: `${version.name}@${version.version}`,
        ...(version.integrity === null ? {} : { integrity: version.integrity }),
      });
      return res.body as unknown as Readable;
    } catch (error) {
      const status = statusOf(error);
      if (status === 404 || status === 410 || status === 451) throw new TarballUnavailable(status);
      throw new RegistryUnavailable(false, { cause: error });
    }
  }
}
