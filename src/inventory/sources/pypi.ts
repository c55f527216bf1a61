import type { Readable } from 'node:stream';
import { explain, maxSatisfying, valid, validRange } from '@renovatebot/pep440';
import type { RegistryHttp } from '../../sbom/ecosystems/types.js';
import { fetchArchive, registryJson } from './archive.js';
import { RegistryMalformed, type PackageVersion, type VersionLookup } from './npm.js';
import type { PackageRegistrySource } from './registry-source.js';

/**
 * PyPI as an inventory source through its JSON API (`/pypi/<name>/json`): a release's files with
 * `packagetype`, `yanked` and `url`. The archive listed is the release's gzip sdist
 * (`<name>-<version>/` stripped). Versions are PEP 440: an exact version pins (yanked files
 * too); a specifier or `latest` picks the highest non-prerelease with a file not yanked.
 */

/** PEP 503 normalization: runs of `-`, `_` and `.` become one `-`, lower-cased. */
export function pep503(name: string): string {
  return name.replace(/[-_.]+/g, '-').toLowerCase();
}

interface ReleaseFile {
  readonly packagetype?: unknown;
  readonly url?: unknown;
  readonly filename?: unknown;
  readonly yanked?: unknown;
}

interface ProjectDoc {
  readonly info?: { readonly name?: unknown; readonly project_urls?: unknown; readonly home_page?: unknown };
  readonly releases?: unknown;
}

const REPO_HOST = /^https?:\/\/(www\.)?(github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)\/[^/]+\/[^/#?]+/i;

/** The first project URL that names a repository on a known git host. */
function repositoryOf(info: ProjectDoc['info']): string | null {
  const projectUrls: unknown = info?.project_urls;
  const urls: unknown[] = [...(typeof projectUrls === 'object' && projectUrls !== null ? Object.values(projectUrls as Record<string, unknown>) : []), info?.home_page];
  for (const url of urls) if (typeof url === 'string' && REPO_HOST.test(url)) return REPO_HOST.exec(url)?.[0] ?? null;
  return null;
}

/** The listable archive of a release: its gzip sdist (wheels are zip files, not read yet). */
function sdistOf(files: readonly ReleaseFile[], pinned: boolean): string | null {
  for (const file of files) {
    if (file.packagetype !== 'sdist' || typeof file.url !== 'string' || typeof file.filename !== 'string') continue;
    if (!pinned && file.yanked === true) continue;
    if (/\.tar\.gz$/i.test(file.filename)) return file.url;
  }
  return null;
}

export class PypiPackageSource implements PackageRegistrySource {
  constructor(
    private readonly base: string,
    private readonly http: RegistryHttp,
  ) {}

  private doc(name: string): Promise<ProjectDoc | null> {
    return registryJson<ProjectDoc>(this.http, `${this.base.replace(/\/+$/, '')}/pypi/${encodeURIComponent(pep503(name))}/json`, (doc) =>
      typeof doc.releases === 'object' && doc.releases !== null && !Array.isArray(doc.releases),
    );
  }

  async lookup(name: string, spec: string | null): Promise<VersionLookup> {
    const doc = await this.doc(name);
    if (doc === null) return { kind: 'no_package' };
    const releases = doc.releases as Record<string, unknown>;
    for (const files of Object.values(releases)) if (!Array.isArray(files)) throw new RegistryMalformed();
    const filesOf = (v: string): ReleaseFile[] => (releases[v] as unknown[]).filter((f): f is ReleaseFile => typeof f === 'object' && f !== null);
    const exact = spec === null ? null : (spec.startsWith('==') ? spec.slice(2) : spec);
    let chosen: string | null;
    let pinned = false;
    if (exact !== null && valid(exact) !== null && !/[<>=!~*,]/.test(exact)) {
      chosen = Object.keys(releases).find((v) => v === exact || valid(v) === valid(exact)) ?? null;
      pinned = true;
    } else {
      const range = spec === null || spec === 'latest' ? '>=0' : spec;
      if (!validRange(range)) return { kind: 'no_version' };
      const live = Object.keys(releases).filter((v) => explain(v) !== null && filesOf(v).some((f) => f.yanked !== true));
      chosen = maxSatisfying(live, range);
    }
    if (chosen === null || (!pinned && filesOf(chosen).length === 0)) return { kind: 'no_version' };
    return {
      kind: 'found',
      version: { name: pep503(name), version: chosen, tarball: sdistOf(filesOf(chosen), pinned), integrity: null, unpackedSize: null, fileCount: null },
    };
  }

  async provenance(name: string, _version: string): Promise<{ repoUrl: string | null; gitHead: string | null }> {
    try {
      return { repoUrl: repositoryOf((await this.doc(name))?.info), gitHead: null };
    } catch {
      return { repoUrl: null, gitHead: null };
    }
  }

  tarball(version: PackageVersion): Promise<Readable> {
    return fetchArchive(version);
  }
}
