import { explain, maxSatisfying, valid, validRange } from '@renovatebot/pep440';
import type { TarFile, TarLimits, TarReadResult } from '../../archives/tar-reader.js';
import { archiveBytes, readArchive, registryJson, type SourceHttp } from '../shared/archive.js';
import { RegistryMalformed } from '../shared/source-errors.js';
import type { PackageVersion, VersionLookup } from '../shared/package-source.js';
import { codeHostRepository } from '../shared/repo-url.js';
import type { PackageRegistrySource, Provenance } from '../shared/package-source.js';
import { pep503 } from './names.js';
import { projectDocumentUrl } from './registry.js';

/**
 * PyPI as an inventory source through its JSON API (`/pypi/<name>/json`): a release's files with
 * `packagetype`, `yanked` and `url`. The archive listed is the release's sdist (`<name>-<version>/`
 * stripped), else its wheel (see `archiveOf`). Versions are PEP 440: an exact version pins (yanked files
 * too); a specifier or `latest` picks the highest non-prerelease with a file not yanked.
 */

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

/** The first project URL that names a repository on a known git host. */
function repositoryOf(info: ProjectDoc['info']): string | null {
  const projectUrls: unknown = info?.project_urls;
  return codeHostRepository([...(typeof projectUrls === 'object' && projectUrls !== null ? Object.values(projectUrls as Record<string, unknown>) : []), info?.home_page]);
}

/**
 * The listable archive of a release: its sdist (`.tar.gz`, else `.zip`); a release with wheels
 * only lists its pure-Python wheel (`none-any`), else the first wheel by file name. Yanked files
 * are skipped unless the version was pinned.
 */
function archiveOf(files: readonly ReleaseFile[], pinned: boolean): string | null {
  const usable = files.filter(
    (f): f is ReleaseFile & { url: string; filename: string } => typeof f.url === 'string' && typeof f.filename === 'string' && (pinned || f.yanked !== true),
  );
  const sdists = usable.filter((f) => f.packagetype === 'sdist');
  const sdist = sdists.find((f) => /\.tar\.gz$/i.test(f.filename)) ?? sdists.find((f) => /\.zip$/i.test(f.filename));
  if (sdist !== undefined) return sdist.url;
  const wheels = usable.filter((f) => f.packagetype === 'bdist_wheel' && /\.whl$/i.test(f.filename)).sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
  return (wheels.find((f) => /-none-any\.whl$/i.test(f.filename)) ?? wheels[0])?.url ?? null;
}

export class PypiPackageSource implements PackageRegistrySource {
  constructor(
    private readonly base: string,
    private readonly http: SourceHttp,
  ) {}

  private doc(name: string): Promise<ProjectDoc | null> {
    return registryJson<ProjectDoc>(this.http, projectDocumentUrl(this.base.replace(/\/+$/, ''), name), (doc) =>
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
      version: { name: pep503(name), version: chosen, tarball: archiveOf(filesOf(chosen), pinned), integrity: null, unpackedSize: null, fileCount: null },
    };
  }

  async provenance(name: string, _version: string): Promise<Provenance> {
    try {
      return { repoUrl: repositoryOf((await this.doc(name))?.info), gitHead: null };
    } catch {
      return { repoUrl: null, gitHead: null };
    }
  }

  async read(version: PackageVersion, limits: TarLimits, onFile: (file: TarFile) => Promise<void>): Promise<TarReadResult> {
    // A wheel holds the package's tree at its root; an sdist sits under `<name>-<version>/`.
    const wheel = version.tarball !== null && /\.whl(?:[?#].*)?$/i.test(version.tarball);
    return readArchive(await archiveBytes(this.http, version.tarball), limits, onFile, wheel ? 'none' : 'top');
  }
}
