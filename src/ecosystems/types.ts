import type { MetadataClient } from '../model/enrich-types.js';
import type { AnalysisEnvironment } from '../model/environment.js';
import type { Declaration, Inventory, Occurrence } from '../model/model.js';
import type { FileProblem, InputFile } from '../model/types.js';

export type { FileProblem };

/**
 * The seam every ecosystem plugs into. One module per ecosystem under `src/ecosystems/<id>/`
 * owns detection (by name and content), lockfile parsing, manifest reading, optional resolution of
 * manifests without a lockfile, purls, scopes and its registry metadata client. The pipeline
 * (detect → build → enrich → render → validate) knows no ecosystem.
 */

/** The ecosystem's purl type (`npm`, `pypi`, `cargo`, `golang`, …): also its identity here. */
export type EcosystemId = string;

/** What an ecosystem says of a file it recognises. */
export interface Claim {
  /** The ecosystem's own name of the format, e.g. `poetry-lock`, `cargo-lock`, `go-mod`. */
  readonly kind: string;
  /**
   * `lockfile`: records resolved packages; `manifest`: declares requirements; `auxiliary`: read
   * only beside the others (go.sum, pnpm-workspace.yaml, a `-c` constraints file).
   */
  readonly role: 'lockfile' | 'manifest' | 'auxiliary';
  /**
   * How it was recognised: a well-known file name (`Cargo.lock`) wins over another ecosystem's
   * recognition by content, so a file is never claimed twice.
   */
  readonly by: 'name' | 'content';
}

export interface ClaimedFile extends Claim {
  readonly path: string;
  readonly content: string;
}

export interface BuildContext {
  readonly signal?: AbortSignal;
  /** Called once for each manifest the build has finished with (progress counts). */
  readonly onManifestDone: () => void;
  /** The platform the request says the project installs on; absent parts keep each ecosystem's default. */
  readonly environment?: AnalysisEnvironment;
}

/** An ecosystem's share of the analysis. */
export interface EcosystemInventory {
  readonly inventory: Inventory;
  /** Files it claimed but could not use, and requirements it could not resolve. */
  readonly problems: readonly FileProblem[];
}

export interface Ecosystem {
  readonly id: EcosystemId;
  /** Shown to people (text format, notices): `npm`, `Python`, `Rust`, `Go`. */
  readonly label: string;
  /**
   * Recognises a file by name and content. Never guesses across ecosystems: a file with another
   * ecosystem's well-known name (a NuGet `packages.lock.json`, a `composer.json`) is not claimed.
   * Must be cheap and must not throw: a recognised but malformed file is claimed, and `build`
   * reports it as a problem.
   */
  claim(file: InputFile): Claim | null;
  /** Parses and resolves the claimed files (every one of them, in upload order) into occurrences. */
  build(files: readonly ClaimedFile[], ctx: BuildContext): Promise<EcosystemInventory>;
  /** The package URL of an occurrence this ecosystem built; null when it has none (a local path). */
  purl(occurrence: Occurrence): string | null;
  /** Registry metadata for enrichment; null when the ecosystem has no registry or runs offline. */
  readonly metadata: MetadataClient | null;
  /** Manifests among the claimed files (progress: manifests_total). */
  countManifests?(files: readonly ClaimedFile[]): number;
  /**
   * Loads what `build`, `purl` and `countManifests` need, for an ecosystem whose modules load
   * with its first file (see ecosystems/analysis.ts); the analysis awaits it for every ecosystem
   * that claimed a file, before anything else.
   */
  prepare?(): Promise<void>;
}

/** A requirement kept unresolved, with the ecosystem's own word for where it was declared. */
export type EcosystemDeclaration = Declaration;

export interface RegistryGetOptions {
  readonly signal?: AbortSignal;
  readonly accept?: string;
  /** Credentials for this registry (npm's, as its configuration gives them); dropped on a redirect to another origin. */
  readonly authorization?: string;
}

/**
 * HTTP access to one registry, given to an ecosystem's factory (so the module stays pure). A
 * missing document (404, 410) is null; 5xx, 429, timeouts and network failures throw
 * `TransientAnalysisError`; any other status throws `RegistryResponseError`. Every call is bounded
 * by a deadline and a response size.
 */
export interface RegistryHttp {
  text(url: string, options?: RegistryGetOptions): Promise<string | null>;
  json(url: string, options?: RegistryGetOptions): Promise<unknown>;
}

/** A registry's base URL (from `PACKAGE_REGISTRIES`) with the HTTP access to reach it. */
export interface RegistryEndpoint {
  readonly base: string;
  readonly http: RegistryHttp;
}

/** Registry base URLs by `PACKAGE_REGISTRIES` key, with one HTTP access for all of them. */
export interface RegistryAccess {
  /** By `PACKAGE_REGISTRIES` key (ecosystems/index.ts `RegistryKey`). */
  readonly bases: Partial<Readonly<Record<string, string>>>;
  readonly http: RegistryHttp;
  readonly resolutionTimeoutMs?: number;
  /** Repositories an uploaded POM may declare that are searched too (`MAVEN_ALLOWED_REPOSITORIES`). */
  readonly mavenAllowedRepositories?: readonly string[];
}

/** Whether `url` is one of the allowed URL prefixes or below one. */
export function underAllowed(url: string, allowed: readonly string[]): boolean {
  const u = url.replace(/\/+$/, '');
  return allowed.some((a) => u === a || u.startsWith(`${a}/`));
}
