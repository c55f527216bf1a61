import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { maxSatisfying, valid } from '@renovatebot/ruby-semver';
import { readTarball, TarLimitError, type TarFile, type TarLimits, type TarReadResult } from '../../archives/tar-reader.js';
import { archiveBytes, quietly, registryDocument, registryJson, tarMembers, type SourceHttp } from '../shared/archive.js';
import type { PackageVersion, VersionLookup } from '../shared/package-source.js';
import { codeHostRepository } from '../shared/repo-url.js';
import { NO_PROVENANCE, type PackageRegistrySource, type Provenance } from '../shared/package-source.js';
import { versionUrl } from './registry.js';

/**
 * RubyGems as an inventory source: `GET /api/v1/versions/<name>.json` lists the versions a gem
 * has not yanked (with `platform` and `prerelease`), `/gems/<name>-<version>[-<platform>].gem`
 * is the gem, a plain tar whose `data.tar.gz` holds the files (no top folder) and whose
 * `metadata.gz` is the gemspec as YAML, listed as `.gem/metadata.yml`. The repository is the
 * version's `source_code_uri` (`/api/v2/rubygems/<name>/versions/<version>.json`), else its
 * home page on a known code host.
 *
 * Versions are RubyGems requirements (`7.2.1`, `~> 7.2`, `>= 7.0, < 8`); `latest` is the
 * highest version that is not a pre-release. The `ruby` platform's gem is preferred.
 */

/** Where a gem's metadata is listed: a folder a gem's own files do not use. */
export const GEM_METADATA_PATH = '.gem/metadata.yml';

interface GemVersion {
  readonly number: string;
  readonly platform: string;
  readonly prerelease: boolean;
}

export class RubygemsPackageSource implements PackageRegistrySource {
  private readonly base: string;

  constructor(
    base: string,
    private readonly http: SourceHttp,
  ) {
    this.base = base.replace(/\/+$/, '');
  }

  private async versions(name: string): Promise<GemVersion[] | null> {
    const raw = await registryDocument(this.http, `${this.base}/api/v1/versions/${encodeURIComponent(name)}.json`, Array.isArray);
    if (raw === null) return null;
    return (raw as unknown[]).flatMap((v) => {
      const r = v as { number?: unknown; platform?: unknown; prerelease?: unknown } | null;
      if (typeof r?.number !== 'string' || valid(r.number) === null) return [];
      return [{ number: r.number, platform: typeof r.platform === 'string' ? r.platform : 'ruby', prerelease: r.prerelease === true || /[a-z]/i.test(r.number) }];
    });
  }

  async lookup(name: string, spec: string | null): Promise<VersionLookup> {
    const versions = await this.versions(name);
    if (versions === null || versions.length === 0) return { kind: versions === null ? 'no_package' : 'no_version' };
    const numbers = [...new Set(versions.filter((v) => spec !== null && spec !== 'latest' ? true : !v.prerelease).map((v) => v.number))];
    const chosen = maxSatisfying(numbers, spec === null || spec === 'latest' ? '>= 0' : spec.replace(/([<>=~!]+)(?=\d)/g, '$1 '));
    if (chosen === null) return { kind: 'no_version' };
    const builds = versions.filter((v) => v.number === chosen);
    const platform = (builds.find((v) => v.platform === 'ruby') ?? builds[0])?.platform ?? 'ruby';
    const file = `${name}-${chosen}${platform === 'ruby' ? '' : `-${platform}`}.gem`;
    return { kind: 'found', version: { name, version: chosen, tarball: `${this.base}/gems/${encodeURIComponent(file)}`, integrity: null, unpackedSize: null, fileCount: null } };
  }

  provenance(name: string, version: string): Promise<Provenance> {
    return quietly(NO_PROVENANCE, async () => {
      const doc = await registryJson<{ metadata?: Record<string, unknown>; homepage_uri?: unknown; source_code_uri?: unknown }>(
        this.http,
        versionUrl(this.base, name, version),
        () => true,
      );
      const candidates = [doc?.metadata?.['source_code_uri'], doc?.source_code_uri, doc?.homepage_uri, doc?.metadata?.['homepage_uri']];
      return { repoUrl: codeHostRepository(candidates), gitHead: null };
    });
  }

  async read(version: PackageVersion, limits: TarLimits, onFile: (file: TarFile) => Promise<void>): Promise<TarReadResult> {
    const gem = await archiveBytes(this.http, version.tarball);
    const members = await tarMembers(gem, limits, ['data.tar.gz', 'metadata.gz']);
    const data = members.get('data.tar.gz');
    if (data === undefined) throw new TarLimitError('corrupt', 'the gem has no data.tar.gz');
    const result = await readTarball(Readable.from([data]), limits, onFile, { root: 'none' });
    const metadata = members.get('metadata.gz');
    if (metadata !== undefined) {
      let yaml: Buffer;
      try {
        yaml = gunzipSync(metadata, { maxOutputLength: limits.maxFileBytes });
      } catch (error) {
        throw new TarLimitError('corrupt', 'the gem metadata is not readable gzip', { cause: error });
      }
      await onFile({ path: GEM_METADATA_PATH, size: yaml.length, bytes: yaml });
    }
    return { ...result, compressedBytes: gem.length };
  }
}
