import type { MetadataClient } from '../../model/enrich-types.js';
import { EMPTY_METADATA, supplierOf, type PackageMetadata } from '../../model/metadata.js';
import type { RegistryEndpoint } from '../types.js';
import { effectiveModel, type Gav, type PomRef } from './effective.js';
import { licenseText, parsePom, type Pom, type PomLicense } from './parse-pom.js';
import { childOf, JvmFileError, listOf, textOf, textsOf, xmlReader } from './xml.js';

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
const metadataReader = xmlReader(['version', 'snapshotVersion']);

export interface MavenRepository {
  /**
   * A POM from the repository, else from each of `extra` in order (repositories the uploaded POMs
   * declare that the operator allows). A `-SNAPSHOT` version is read through its version-level
   * maven-metadata.xml (the timestamped build it names), else by its plain file name.
   */
  pom(gav: Gav, signal?: AbortSignal, extra?: readonly string[]): Promise<PomRef | null>;
  /** The versions the repositories' maven-metadata.xml list together; null when none has one. */
  versions(groupId: string, artifactId: string, signal?: AbortSignal, extra?: readonly string[]): Promise<readonly string[] | null>;
}

function segment(s: string): string {
  return encodeURIComponent(s);
}

/** The POM's URL; `build` is a snapshot's timestamped version (`1.0-20240101.120000-3`) in its file name. */
export function pomUrl(base: string, gav: Gav, build: string = gav.version): string {
  return `${versionDir(base, gav)}/${segment(gav.artifactId)}-${segment(build)}.pom`;
}

function versionDir(base: string, gav: Gav): string {
  return `${base}/${gav.groupId.split('.').map(segment).join('/')}/${segment(gav.artifactId)}/${segment(gav.version)}`;
}

/**
 * The build a snapshot's version-level maven-metadata.xml names for its POM: the `pom` entry of
 * `<snapshotVersions>` (Maven 3), else `<snapshot>`'s timestamp and build number (Maven 2); null
 * for a `<localCopy>` or a file naming neither (the plain `-SNAPSHOT.pom` is read then).
 */
export function snapshotBuild(text: string, version: string): string | null {
  const versioning = childOf(metadataReader.read(text, 'metadata'), 'versioning');
  for (const v of listOf(versioning, 'snapshotVersions', 'snapshotVersion')) {
    if (textOf(v, 'extension') === 'pom' && (textOf(v, 'classifier') ?? '') === '') return textOf(v, 'value');
  }
  const snapshot = childOf(versioning, 'snapshot');
  const timestamp = textOf(snapshot, 'timestamp');
  const buildNumber = textOf(snapshot, 'buildNumber');
  if (textOf(snapshot, 'localCopy') === 'true' || timestamp === null || buildNumber === null) return null;
  return version.replace(/SNAPSHOT$/, `${timestamp}-${buildNumber}`);
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
  async function pomAt(root: string, gav: Gav, signal?: AbortSignal): Promise<PomRef | null> {
    if (gav.version.endsWith('-SNAPSHOT')) {
      const build = await cached(`${versionDir(root, gav)}/maven-metadata.xml`, (text) => snapshotBuild(text, gav.version), signal);
      if (build !== null) {
        const pom = await cached<Pom>(pomUrl(root, gav, build), parsePom, signal);
        if (pom !== null) return { pom, path: null, build };
      }
    }
    const pom = await cached<Pom>(pomUrl(root, gav), parsePom, signal);
    return pom === null ? null : { pom, path: null };
  }
  const roots = (extra: readonly string[] | undefined): string[] => [base, ...(extra ?? []).map((r) => r.replace(/\/+$/, '')).filter((r) => r !== base)];
  return {
    async pom(gav, signal, extra) {
      for (const root of roots(extra)) {
        const ref = await pomAt(root, gav, signal);
        if (ref !== null) return ref;
      }
      return null;
    },
    async versions(groupId, artifactId, signal, extra) {
      const lists = await Promise.all(roots(extra).map((root) => cached(metadataUrl(root, groupId, artifactId), parseMavenMetadata, signal)));
      const found = lists.filter((l): l is string[] => l !== null);
      return found.length === 0 ? null : [...new Set(found.flat())];
    },
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
        return pomMetadata(ref.pom, model.licenses);
      } catch (error) {
        // A POM this reader refuses gives no facts; the component keeps what the build recorded.
        if (error instanceof JvmFileError) return null;
        throw error;
      }
    },
  };
}

/** The facts of a POM, with the licenses of its effective model (its own, else its nearest ancestor's). */
export function pomMetadata(pom: Pom, licenses: readonly PomLicense[]): PackageMetadata {
  return {
    ...EMPTY_METADATA,
    license: licenseText(licenses),
    description: pom.description ?? pom.name,
    homepage: literal(pom.url),
    repository: literal(pom.scmUrl),
    author: pom.developers[0] ?? null,
    // The groupId names the organization that publishes under it (the POM reader keeps no <organization>).
    supplier: supplierOf('organization', pom.groupId ?? pom.parent?.groupId),
  };
}

/** A URL still holding `${…}` (inherited and interpolated in ways not followed here) is not shown. */
function literal(url: string | null): string | null {
  return url === null || url.includes('${') ? null : url;
}
