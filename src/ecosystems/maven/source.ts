import { JvmFileError } from './xml.js';
import { parsePom } from './parse-pom.js';
import { metadataUrl, parseMavenMetadata, pomUrl, snapshotBuild } from './registry.js';
import { compareMavenVersions, highestInRange, isRange } from './version.js';
import type { TarFile, TarLimits, TarReadResult } from '../../archives/tar-reader.js';
import { archiveBytes, quietly, readArchive, registryText, type SourceHttp } from '../shared/archive.js';
import { RegistryMalformed } from '../shared/source-errors.js';
import type { PackageVersion, VersionLookup } from '../shared/package-source.js';
import { NO_PROVENANCE, type PackageRegistrySource, type Provenance } from '../shared/package-source.js';

/**
 * Maven artifacts (`maven:<groupId>:<artifactId>`) as an inventory source, from a Maven 2
 * layout repository: the artifact-level `maven-metadata.xml` lists the versions, the listed
 * archive is the `-sources.jar` when the version publishes one, else the jar itself (both zips,
 * read whole: a jar has no top folder). A `-SNAPSHOT` resolves to its latest timestamped build
 * through the version-level metadata.
 *
 * Versions: an exact version (listed, or with a POM although the metadata is stale), a Maven
 * range (`[1.0,2.0)`, `(,1.5]`, unions) for its highest release, `latest` for the highest
 * version that is not a snapshot. The repository is the POM's `<scm><url>`.
 */

function gavOf(name: string, version: string): { groupId: string; artifactId: string; version: string } {
  const [groupId = '', artifactId = ''] = name.split(':');
  return { groupId, artifactId, version };
}

export class MavenPackageSource implements PackageRegistrySource {
  private readonly base: string;

  constructor(
    base: string,
    private readonly http: SourceHttp,
  ) {
    this.base = base.replace(/\/+$/, '');
  }

  private async versions(name: string): Promise<string[] | null> {
    const { groupId, artifactId } = gavOf(name, '');
    const text = await registryText(this.http, metadataUrl(this.base, groupId, artifactId), 'application/xml, text/xml, */*');
    if (text === null) return null;
    try {
      return parseMavenMetadata(text);
    } catch (error) {
      if (error instanceof JvmFileError) throw new RegistryMalformed({ cause: error });
      throw error;
    }
  }

  private pom(name: string, version: string): Promise<string | null> {
    return registryText(this.http, pomUrl(this.base, gavOf(name, version)), 'application/xml, text/xml, */*');
  }

  /** The file name stem of a version's artifacts: a snapshot's latest timestamped build, else the version. */
  private async build(name: string, version: string): Promise<string> {
    if (!version.endsWith('-SNAPSHOT')) return version;
    const gav = gavOf(name, version);
    const dir = pomUrl(this.base, gav).replace(/\/[^/]*$/, '');
    const text = await registryText(this.http, `${dir}/maven-metadata.xml`, 'application/xml, text/xml, */*');
    if (text === null) return version;
    try {
      return snapshotBuild(text, version) ?? version;
    } catch {
      return version;
    }
  }

  async lookup(name: string, spec: string | null): Promise<VersionLookup> {
    const versions = await this.versions(name);
    if (versions === null) return { kind: 'no_package' };
    let chosen: string | null;
    if (spec === null || spec === 'latest' || spec === 'RELEASE') {
      chosen = versions.filter((v) => !v.endsWith('-SNAPSHOT')).reduce<string | null>((best, v) => (best === null || compareMavenVersions(v, best) > 0 ? v : best), null);
    } else if (isRange(spec)) {
      chosen = highestInRange(spec, versions);
    } else {
      // A version the metadata does not list yet may still be published: its POM tells.
      chosen = versions.includes(spec) || (await this.pom(name, spec)) !== null ? spec : null;
    }
    if (chosen === null) return { kind: 'no_version' };
    const build = await this.build(name, chosen);
    const sources = pomUrl(this.base, gavOf(name, chosen), build).replace(/\.pom$/, '-sources.jar');
    return { kind: 'found', version: { name, version: chosen, tarball: sources, integrity: null, unpackedSize: null, fileCount: null } };
  }

  provenance(name: string, version: string): Promise<Provenance> {
    return quietly(NO_PROVENANCE, async () => {
      const text = await this.pom(name, version);
      const scm = text === null ? null : parsePom(text).scmUrl;
      // An uninterpolated `${…}` is no URL anyone can follow.
      return { repoUrl: scm !== null && /^https?:\/\//.test(scm) && !scm.includes('${') ? scm : null, gitHead: null };
    });
  }

  async read(version: PackageVersion, limits: TarLimits, onFile: (file: TarFile) => Promise<void>): Promise<TarReadResult> {
    const sources = version.tarball;
    // The sources jar when published; else the jar (its classes and resources).
    const bytes = (await archiveBytes(this.http, sources, true)) ?? (await archiveBytes(this.http, sources?.replace(/-sources\.jar$/, '.jar') ?? null));
    return readArchive(bytes, limits, onFile, 'none');
  }
}
