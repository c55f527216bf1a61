import type { MetadataClient } from '../../enrich-types.js';
import { EMPTY_METADATA, type PackageMetadata } from '../../metadata.js';
import type { RegistryEndpoint } from '../types.js';
import { effectiveModel, type Gav, type PomRef } from './effective.js';
import { parsePom, type PomLicense } from './parse-pom.js';
import { JvmFileError, textsOf, childOf, xmlReader } from './xml.js';

/**
 * A Maven repository (the layout of https://maven.apache.org/repository/layout.html) under the
 * root URL of `PACKAGE_REGISTRIES.maven`: `/<group as dirs>/<artifact>/<version>/<artifact>-<version>.pom`
 * and `/<group as dirs>/<artifact>/maven-metadata.xml`. POM texts are cached per process (a
 * bounded map of promises, so concurrent analyses share one request): a released POM never changes,
 * and the analysis's metadata cache keeps derived facts (licenses, urls), not the POM texts the
 * resolver needs, so it does not fit. A missing document (404) is null; the HTTP client throws
 * TransientAnalysisError on 5xx, 429 and timeouts.
 */

const MAX_CACHED = 5000;
const metadataReader = xmlReader(['version']);

export interface MavenRepository {
  pom(gav: Gav, signal?: AbortSignal): Promise<PomRef | null>;
  versions(groupId: string, artifactId: string, signal?: AbortSignal): Promise<readonly string[] | null>;
}

function segment(s: string): string {
  return encodeURIComponent(s);
}

export function pomUrl(base: string, gav: Gav): string {
  const dirs = gav.groupId.split('.').map(segment).join('/');
  return `${base}/${dirs}/${segment(gav.artifactId)}/${segment(gav.version)}/${segment(gav.artifactId)}-${segment(gav.version)}.pom`;
}

export function metadataUrl(base: string, groupId: string, artifactId: string): string {
  return `${base}/${groupId.split('.').map(segment).join('/')}/${segment(artifactId)}/maven-metadata.xml`;
}

/** `<metadata><versioning><versions><version>…` */
export function parseMavenMetadata(text: string): string[] {
  return textsOf(childOf(metadataReader.read(text, 'metadata'), 'versioning'), 'versions', 'version');
}

export function mavenRepository(registry: RegistryEndpoint): MavenRepository {
  const base = registry.base.replace(/\/+$/, '');
  const texts = new Map<string, Promise<string | null>>();
  const cached = (url: string, signal?: AbortSignal): Promise<string | null> => {
    const hit = texts.get(url);
    if (hit !== undefined) return hit;
    const p = registry.http.text(url, { signal, accept: 'application/xml, text/xml, */*' });
    texts.set(url, p);
    // A failure is not cached: the next analysis asks again.
    p.catch(() => texts.delete(url));
    if (texts.size > MAX_CACHED) {
      const oldest = texts.keys().next().value;
      if (oldest !== undefined) texts.delete(oldest);
    }
    return p;
  };
  return {
    async pom(gav, signal) {
      const text = await cached(pomUrl(base, gav), signal);
      return text === null ? null : { pom: parsePom(text), path: null };
    },
    async versions(groupId, artifactId, signal) {
      const text = await cached(metadataUrl(base, groupId, artifactId), signal);
      return text === null ? null : parseMavenMetadata(text);
    },
  };
}

function licenseText(licenses: readonly PomLicense[]): string | null {
  const names = licenses.map((l) => l.name ?? l.url).filter((n): n is string => n !== null);
  if (names.length <= 1) return names[0] ?? null;
  return `(${names.join(' OR ')})`;
}

/**
 * Enrichment from the POM: the artifact's own `<licenses>`, else its parent chain's; `<name>` and
 * `<description>`, `<url>`, `<scm><url>`, the first developer. `name` is `group:artifact`.
 */
export function mavenMetadata(repository: MavenRepository): MetadataClient {
  return {
    async fetch(name: string, version: string, signal?: AbortSignal): Promise<PackageMetadata | null> {
      const cut = name.indexOf(':');
      if (cut <= 0) return null;
      const gav = { groupId: name.slice(0, cut), artifactId: name.slice(cut + 1), version };
      let ref: PomRef | null;
      try {
        ref = await repository.pom(gav, signal);
        if (ref === null) return null;
        const model = await effectiveModel(ref, {
          parent: async (child) => (child.pom.parent === null ? null : repository.pom(child.pom.parent, signal)),
          bom: async () => null,
        });
        const { pom } = ref;
        return {
          ...EMPTY_METADATA,
          license: licenseText(model.licenses),
          description: pom.description ?? pom.name,
          homepage: literal(pom.url),
          repository: literal(pom.scmUrl),
          author: pom.developers[0] ?? null,
        };
      } catch (error) {
        // A POM this reader refuses gives no facts; the component keeps what the build recorded.
        if (error instanceof JvmFileError) return null;
        throw error;
      }
    },
  };
}

/** A URL still holding `${…}` (inherited and interpolated in ways not followed here) is not shown. */
function literal(url: string | null): string | null {
  return url === null || url.includes('${') ? null : url;
}
