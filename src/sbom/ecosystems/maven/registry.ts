import type { MetadataClient } from '../../enrich-types.js';
import { EMPTY_METADATA, type PackageMetadata } from '../../metadata.js';
import type { RegistryEndpoint } from '../types.js';
import { effectiveModel, type Gav, type PomRef } from './effective.js';
import { licenseText, parsePom, type Pom } from './parse-pom.js';
import { JvmFileError, textsOf, childOf, xmlReader } from './xml.js';

/**
 * A Maven repository (the layout of https://maven.apache.org/repository/layout.html) under the
 * root URL of `PACKAGE_REGISTRIES.maven`: `/<group as dirs>/<artifact>/<version>/<artifact>-<version>.pom`
 * and `/<group as dirs>/<artifact>/maven-metadata.xml`. POMs are cached per process, parsed (a
 * bounded map of promises, so concurrent analyses share one request): a released POM never changes,
 * and the analysis's metadata cache keeps derived facts (licenses, urls), not the POMs the resolver
 * needs, so it does not fit. A missing document (404) is null; the HTTP client throws
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

/** `p`, or the signal's reason as soon as it aborts (the shared request goes on for others). */
function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return p;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function mavenRepository(registry: RegistryEndpoint): MavenRepository {
  const base = registry.base.replace(/\/+$/, '');
  const documents = new Map<string, Promise<unknown>>();
  /** The parsed document at `url`, shared; a POM that does not parse is cached as the refusal it is. */
  function cached<T>(url: string, parse: (text: string) => T, signal?: AbortSignal): Promise<T | null> {
    const hit = documents.get(url) as Promise<T | null> | undefined;
    if (hit !== undefined) return abortable(hit, signal);
    // Shared between analyses, so not tied to one analysis's signal (the client has its deadline).
    const p = registry.http.text(url, { accept: 'application/xml, text/xml, */*' }).then((text) => (text === null ? null : parse(text)));
    documents.set(url, p);
    // A transient failure is not cached: the next analysis asks again.
    p.catch((error: unknown) => {
      if (!(error instanceof JvmFileError)) documents.delete(url);
    });
    if (documents.size > MAX_CACHED) {
      const oldest = documents.keys().next().value;
      if (oldest !== undefined) documents.delete(oldest);
    }
    return abortable(p, signal);
  }
  return {
    async pom(gav, signal) {
      const pom = await cached<Pom>(pomUrl(base, gav), parsePom, signal);
      return pom === null ? null : { pom, path: null };
    },
    versions: (groupId, artifactId, signal) => cached(metadataUrl(base, groupId, artifactId), parseMavenMetadata, signal),
  };
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
