import { baseOf, type SourceContext } from '../registration.js';
import { registryText, type SourceHttp } from '../shared/archive.js';
import { withdrawn, type InspectedPackage, type InspectedRelease, type PackageInspector } from '../shared/inspect.js';
import { RegistryMalformed } from '../shared/source-errors.js';
import { licenseText, parsePom } from './parse-pom.js';
import { metadataUrl, pomUrl } from './registry.js';
import { compareMavenVersions } from './version.js';
import { childOf, JvmFileError, textOf, textsOf, xmlReader } from './xml.js';

/**
 * Maven inspection from the repository layout: the artifact's `maven-metadata.xml` (its versions,
 * `<release>` and `<latest>`) and the version's POM (licenses, description, url, scm, declared
 * dependencies with scope and optional, relocation). Repositories date no version (null), yank
 * nothing, and a POM's `${…}` values are shown as written: the POM is what was published.
 */

const XML = 'application/xml, text/xml, */*';
const metadataReader = xmlReader(['version']);

/** `group:artifact` as the target names it. */
function gavOf(name: string, version: string): { groupId: string; artifactId: string; version: string } {
  const colon = name.indexOf(':');
  return { groupId: name.slice(0, colon), artifactId: name.slice(colon + 1), version };
}

class MavenInspector implements PackageInspector {
  constructor(
    private readonly base: string,
    private readonly http: SourceHttp,
  ) {}

  async package(name: string): Promise<InspectedPackage | null> {
    const { groupId, artifactId } = gavOf(name, '');
    const xml = await registryText(this.http, metadataUrl(this.base, groupId, artifactId), XML);
    if (xml === null) return null;
    let versions: string[];
    let latest: string | null;
    try {
      const versioning = childOf(metadataReader.read(xml, 'metadata'), 'versioning');
      versions = textsOf(versioning, 'versions', 'version');
      latest = textOf(versioning, 'release') ?? textOf(versioning, 'latest');
    } catch (error) {
      if (error instanceof JvmFileError) throw new RegistryMalformed({ cause: error });
      throw error;
    }
    versions.sort(compareMavenVersions);
    latest ??= versions.filter((v) => !v.endsWith('-SNAPSHOT')).at(-1) ?? null;
    return { name, versions: versions.map((version) => ({ version, publishedAt: null, yanked: false, deprecated: false })), latest };
  }

  async release(name: string, version: string): Promise<InspectedRelease | null> {
    const xml = await registryText(this.http, pomUrl(this.base, gavOf(name, version)), XML);
    if (xml === null) return null;
    let pom;
    try {
      pom = parsePom(xml);
    } catch (error) {
      if (error instanceof JvmFileError) throw new RegistryMalformed({ cause: error });
      throw error;
    }
    const moved = pom.relocation;
    const relocation = moved === null ? null : `relocated to ${moved.groupId ?? gavOf(name, '').groupId}:${moved.artifactId ?? gavOf(name, '').artifactId}${moved.version === null ? '' : `:${moved.version}`}${moved.message === null ? '' : ` (${moved.message})`}`;
    return {
      version,
      publishedAt: null,
      license: licenseText(pom.licenses),
      description: pom.description,
      homepage: pom.url,
      repositoryUrl: pom.scmUrl,
      supplier: pom.developers[0] ?? null,
      deprecated: withdrawn(relocation !== null, 'relocated', relocation),
      yanked: null,
      retracted: null,
      installScripts: null,
      dependencies: pom.dependencies.map((d) => ({ name: `${d.groupId}:${d.artifactId}`, requirement: d.version, kind: d.scope ?? 'compile', optional: d.optional })),
      exports: null,
    };
  }
}

export function inspector(context: SourceContext): PackageInspector {
  return new MavenInspector(baseOf(context.registries, 'maven').replace(/\/+$/, ''), context.http);
}
