import type { Outgoing } from '../net/dispatchers.js';
import type { InputFile } from '../model/types.js';
import type { NpmEcosystemOptions } from './npm/analysis.js';
import type { NpmOptions } from './npm/options.js';
import type { SourceHttp } from './shared/archive.js';
import type { PackageInspector } from './shared/inspect.js';
import type { PackageRegistrySource } from './shared/package-source.js';
import type { Claim, Ecosystem, EcosystemId, RegistryEndpoint } from './types.js';

/**
 * What one ecosystem folder declares of itself in its `index.ts`: everything configuration, the
 * target grammar and the analysis know of it. src/ecosystems/index.ts lists them, one line each.
 * The record is cheap to load: its analysis (parsers, resolver, registry client) and its package
 * source load with their first use.
 */
export interface EcosystemRegistration {
  /** Also the name of its folder. */
  readonly id: EcosystemId;
  /** Shown to people (text format, notices): `npm`, `Python`, `Rust`, `Go`. */
  readonly label: string;
  /** The package URL type of its components. */
  readonly purlType: string;
  /**
   * Its `PACKAGE_REGISTRIES` keys with their default base URLs; the first is the one its analysis
   * reads metadata from. None for npm (npm's own configuration names its registries) and Swift.
   */
  readonly registries: readonly RegistryDefault[];
  readonly detect: Detection;
  readonly analysis: AnalysisLoader;
  /** Its package targets (`<registry>:<name>[@<version>]`), when its registry serves archives. */
  readonly packages?: PackageTargets;
}

export interface RegistryDefault {
  readonly key: string;
  readonly base: string;
}

/** Detection as data (the names it claims) and as the check of one file (content included). */
export interface Detection {
  /**
   * The file names (or `*` patterns, with a folder where the name alone does not decide) it
   * claims by name; files of other names it may claim by content (see `claim`).
   */
  readonly files: readonly string[];
  /** Recognises a file by name and content; must be cheap and must not throw (see `Ecosystem.claim`). */
  readonly claim: (file: InputFile) => Claim | null;
}

/** What an ecosystem's analysis is made from, besides its registry endpoint. */
export interface EcosystemsOptions {
  readonly npm: NpmEcosystemOptions;
  /** Registry access per `PACKAGE_REGISTRIES` key; an absent key leaves that ecosystem offline. */
  readonly registries: Partial<Readonly<Record<string, RegistryEndpoint>>>;
  /** Deadline of resolving manifests without a lockfile (`RESOLUTION_TIMEOUT_MS`). */
  readonly resolutionTimeoutMs?: number;
  /** Repositories an uploaded POM may declare that Maven resolution searches too. */
  readonly mavenAllowedRepositories?: readonly string[];
}

/**
 * How the analysis gets the ecosystem: npm, met in most analyses, at once; every other with its
 * first file (the CLI bundle makes each such module a chunk loaded on demand).
 */
export type AnalysisLoader =
  | { readonly loaded: 'at-once'; readonly create: (options: EcosystemsOptions) => Ecosystem }
  | { readonly loaded: 'with-first-file'; readonly create: (endpoint: RegistryEndpoint | null, options: EcosystemsOptions) => Promise<Ecosystem> };

/** An ecosystem's package targets: their prefixes, their name and version grammar, their source. */
export interface PackageTargets {
  /** Target prefixes; the first is the registry's name in targets and answers (`crates`), the others aliases (`cargo`). */
  readonly prefixes: readonly [string, ...string[]];
  /** The name as the registry identifies it (normalised), or null when it is not a valid name. */
  readonly name: (given: string) => string | null;
  /**
   * How a version expression is written: `as-given` (npm's, blanks refused), or normalised with
   * blanks refused (`one-clause`) or allowed between clauses (`clauses`: pub, Composer, Elixir, Ruby).
   */
  readonly spec: 'as-given' | 'one-clause' | 'clauses';
  /** Loads the module of its package source (`source.ts`): the service loads every one as it starts. */
  readonly load: () => Promise<unknown>;
  /** Its package source, from that module. */
  readonly source: (context: SourceContext) => Promise<PackageRegistrySource>;
  /**
   * Its package inspection (`inspect.ts`: versions, release facts, declared dependencies), loaded
   * with the first inspection; through the same registry client as its source.
   */
  readonly inspect?: (context: SourceContext) => Promise<PackageInspector>;
}

/** What a package source is made from. */
export interface SourceContext {
  /** `PACKAGE_REGISTRIES`, defaults included. */
  readonly registries: Readonly<Record<string, string>>;
  readonly http: SourceHttp;
  /** npm's configuration, and its own HTTP when that configuration names its CAs. */
  readonly npm: { readonly options: NpmOptions; readonly http: SourceHttp; readonly outgoing: Outgoing };
}

/** The record, its literal types kept (the registry keys and prefixes the list derives its unions from). */
export function registration<const R extends EcosystemRegistration>(record: R): R {
  return record;
}

/** The base URL of `key` in `registries`; the configuration always holds every key. */
export function baseOf(registries: Readonly<Record<string, string>>, key: string): string {
  const base = registries[key];
  if (base === undefined) throw new Error(`no base URL is configured for the ${key} registry`);
  return base;
}
