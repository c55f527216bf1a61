import { OSV_ECOSYSTEM_BY_PURL_TYPE } from '../advisories/ecosystems.js';
import type { AdvisoryLookup } from '../advisories/types.js';
import { VersionOrders } from '../advisories/versions/index.js';
import { ECOSYSTEMS } from '../ecosystems/index.js';
import type { InspectedPackage, InspectedRelease, InspectedVersion, PackageInspector } from '../ecosystems/shared/inspect.js';
import type { PackageSources } from '../ecosystems/shared/package-source.js';
import { RegistryMalformed, RegistryUnavailable } from '../ecosystems/shared/source-errors.js';
import { blockedIn } from '../net/address-policy.js';
import { DomainError } from '../errors.js';
import type { PackageTarget } from '../inventory/targets.js';
import type { VersionCompare } from './changelog-seam.js';
import { FreshCache, type Fresh } from './fresh-cache.js';
import { packageVulnerabilities, type VulnerabilityView } from './vulnerabilities.js';
import type { PackageField, PackageResponseType } from './schemas.js';
import { releaseView } from './views.js';

/**
 * Package inspection: a target resolved to one version through its registry's inspector (the
 * ecosystem folder's `inspect.ts`, reached through its registration), that version's facts, its
 * matched advisories and the package's recent versions. Registry answers are kept while fresh
 * (./fresh-cache.ts); a registry failure is a 502 naming the registry, its deadline a 504, an
 * unknown package or version a 404 (naming the versions around a missing one).
 */

export interface InspectionDeps {
  readonly inspectors: Readonly<Partial<Record<string, PackageInspector>>>;
  /** The package sources (listing's): they resolve ranges and tags the way list targets do. */
  readonly sources: PackageSources;
  /** The advisory mirror; null when advisories are off on this service. */
  readonly advisories: AdvisoryLookup | null;
  /** The service syncs no advisories (ADVISORY_DB_URL off): the note says so. */
  readonly advisoriesOff?: boolean;
  readonly packageTtlMs?: number;
  readonly releaseTtlMs?: number;
  /** How long a version's matched advisories are reused (0: matched on every request). */
  readonly vulnerabilitiesTtlMs?: number;
}

/** A target resolved to one version, with what its registry says of it. */
export interface ResolvedRelease {
  readonly target: PackageTarget;
  readonly canonical: string;
  readonly version: string;
  readonly pkg: Fresh<InspectedPackage>;
  readonly release: Fresh<InspectedRelease>;
  /** The package's ecosystem as its components are typed (`npm`, `cargo`, `golang`…). */
  readonly purlType: string;
  readonly compare: VersionCompare;
}

/** purl type per target registry (the first prefix of each registration with package targets). */
const PURL_TYPES: ReadonlyMap<string, string> = new Map(ECOSYSTEMS.flatMap((e) => ('packages' in e ? [[e.packages.prefixes[0], e.purlType] as const] : [])));

/** The order versions of a registry are compared in (the advisories' ecosystem orders); text order where none is known. */
export function versionCompare(purlType: string): VersionCompare {
  const osv = OSV_ECOSYSTEM_BY_PURL_TYPE[purlType];
  const order = osv === undefined ? null : new VersionOrders().for(osv, 'ECOSYSTEM');
  return (a, b) => (order === null ? a.localeCompare(b) : order.compare(a, b));
}

/** Versions ordered newest first by `compare`; those it cannot read keep their registry order, after the others. */
export function newestFirst<T extends { readonly version: string }>(versions: readonly T[], compare: VersionCompare): T[] {
  const indexed = versions.map((v, i) => ({ v, i }));
  return indexed
    .sort((a, b) => {
      const c = compare(b.v.version, a.v.version);
      if (c !== null && c !== 0) return c;
      return b.i - a.i;
    })
    .map((x) => x.v);
}

/** The versions just below and above `missing` (two of each), for a 404 a caller can act on. */
export function versionsAround(versions: readonly string[], missing: string, compare: VersionCompare): { below: string[]; above: string[] } {
  const comparable = versions.filter((v) => compare(v, missing) !== null);
  const below = comparable.filter((v) => (compare(v, missing) ?? 0) < 0).sort((a, b) => compare(b, a) ?? 0).slice(0, 2).reverse();
  const above = comparable.filter((v) => (compare(v, missing) ?? 0) > 0).sort((a, b) => compare(a, b) ?? 0).slice(0, 2);
  return { below, above };
}

export class PackageInspection {
  private readonly packages: FreshCache<InspectedPackage | null>;
  private readonly releases: FreshCache<InspectedRelease | null>;
  /** The versions of a cached package answer, newest first: sorted once per answer, not per request. */
  private readonly ordered = new WeakMap<InspectedPackage, readonly InspectedVersion[]>();
  /**
   * Matched advisories per version, briefly: the mirror changes only when a sync or an import
   * swaps an ecosystem's set (hourly by default), and matching is most of a warm inspection.
   */
  private readonly matched: FreshCache<VulnerabilityView>;

  constructor(private readonly deps: InspectionDeps) {
    this.packages = new FreshCache(deps.packageTtlMs ?? 5 * 60_000, 5_000);
    this.releases = new FreshCache(deps.releaseTtlMs ?? 60 * 60_000, 20_000);
    this.matched = new FreshCache(deps.vulnerabilitiesTtlMs ?? 30_000, 20_000);
  }

  /** The package's versions, newest first by its ecosystem's order. */
  newest(resolved: Pick<ResolvedRelease, 'pkg' | 'compare'>): readonly InspectedVersion[] {
    const pkg = resolved.pkg.value;
    let ordered = this.ordered.get(pkg);
    if (ordered === undefined) {
      ordered = newestFirst(pkg.versions, resolved.compare);
      this.ordered.set(pkg, ordered);
    }
    return ordered;
  }

  private inspector(registry: string): PackageInspector {
    const inspector = this.deps.inspectors[registry];
    if (inspector === undefined) throw new DomainError('VALIDATION_ERROR', `Package inspection does not cover the ${registry} registry.`);
    return inspector;
  }

  /** Asks a registry, turning its failures into the answers callers act on. */
  private async ask<T>(registry: string, ask: () => Promise<T>): Promise<T> {
    try {
      return await ask();
    } catch (error) {
      if (error instanceof RegistryUnavailable) {
        if (blockedIn(error) !== null) throw new DomainError('REGISTRY_UNAVAILABLE', `The ${registry} registry pointed this request at a non-public address, which the service does not fetch.`);
        throw error.timedOut
          ? new DomainError('TIMEOUT', `The ${registry} registry did not answer in time; try again.`)
          : new DomainError('REGISTRY_UNAVAILABLE', `The ${registry} registry failed or could not be reached; try again later.`);
      }
      if (error instanceof RegistryMalformed) throw new DomainError('REGISTRY_UNAVAILABLE', `The ${registry} registry answered with a document this service cannot read.`);
      throw error;
    }
  }

  private async packageOf(target: PackageTarget): Promise<Fresh<InspectedPackage>> {
    const inspector = this.inspector(target.registry);
    const fresh = await this.ask(target.registry, () => this.packages.get(`${target.registry}:${target.name}`, () => inspector.package(target.name)));
    if (fresh.value === null) throw new DomainError('PACKAGE_NOT_FOUND', `The ${target.registry} registry has no package ${target.name}.`);
    return { value: fresh.value, fetchedAt: fresh.fetchedAt };
  }

  /** The version a target names: listed exactly, else the registry's latest, else resolved (range, tag) as list targets are. */
  private async versionOf(target: PackageTarget, pkg: InspectedPackage, compare: VersionCompare): Promise<string> {
    const listed = pkg.versions.map((v) => v.version);
    if (target.spec === null) {
      const latest = pkg.latest ?? newestFirst(pkg.versions.filter((v) => !v.yanked), compare)[0]?.version ?? null;
      if (latest === null) throw new DomainError('PACKAGE_NOT_FOUND', `The ${target.registry} registry lists no version of ${target.name}.`);
      return latest;
    }
    if (listed.includes(target.spec)) return target.spec;
    const source = this.deps.sources[target.registry];
    const lookup = source === undefined ? null : await this.ask(target.registry, () => source.lookup(target.name, target.spec));
    if (lookup?.kind === 'found') return lookup.version.version;
    const { below, above } = versionsAround(listed, target.spec, compare);
    const around = [...below, ...above];
    const near = around.length === 0 ? '' : `; the versions around it are ${[...below.map((v) => `${v} (below)`), ...above.map((v) => `${v} (above)`)].join(', ')}`;
    throw new DomainError('PACKAGE_NOT_FOUND', `No version of ${target.registry}:${target.name} matches ${target.spec}${near}.`, { extras: { available_versions: around } });
  }

  async releaseOf(target: PackageTarget, version: string, pkg: Fresh<InspectedPackage>): Promise<Fresh<InspectedRelease>> {
    const inspector = this.inspector(target.registry);
    const fresh = await this.ask(target.registry, () => this.releases.get(`${target.registry}:${target.name}@${version}`, () => inspector.release(target.name, version, pkg.value)));
    if (fresh.value === null) throw new DomainError('PACKAGE_NOT_FOUND', `The ${target.registry} registry has no version ${version} of ${target.name}.`);
    return { value: fresh.value, fetchedAt: fresh.fetchedAt };
  }

  async resolve(target: PackageTarget): Promise<ResolvedRelease> {
    const purlType = PURL_TYPES.get(target.registry) ?? target.registry;
    const compare = versionCompare(purlType);
    const pkg = await this.packageOf(target);
    const version = await this.versionOf(target, pkg.value, compare);
    const release = await this.releaseOf(target, version, pkg);
    const canonical = `${target.registry}:${target.name}@${release.value.version}`;
    return { target, canonical, version: release.value.version, pkg, release, purlType, compare };
  }

  async vulnerabilities(resolved: ResolvedRelease): Promise<VulnerabilityView> {
    const key = `${resolved.purlType}:${resolved.target.name}@${resolved.version}`;
    return (await this.matched.get(key, () => packageVulnerabilities(this.deps.advisories, this.deps.advisoriesOff ?? false, resolved.purlType, resolved.target.name, resolved.version))).value;
  }

  /** `GET /v1/packages/{target}`: the members `fields` names (all by default). */
  async inspect(target: PackageTarget, fields: ReadonlySet<PackageField>, versionsLimit: number): Promise<PackageResponseType> {
    const resolved = await this.resolve(target);
    const { pkg, release } = resolved;
    const answer: PackageResponseType = {
      requested_target: target.text,
      canonical_target: resolved.canonical,
      registry: target.registry,
      package_name: target.name,
      requested_version: target.spec,
      fetched_at: new Date(Math.min(pkg.fetchedAt, release.fetchedAt)).toISOString(),
    };
    if (fields.has('release')) {
      const latest = pkg.value.latest === null ? null : pkg.value.versions.find((v) => v.version === pkg.value.latest);
      answer.release = releaseView(release.value, pkg.value, latest?.publishedAt ?? null);
    }
    if (fields.has('dependencies')) {
      const all = release.value.dependencies;
      answer.dependencies = all.slice(0, MAX_DEPENDENCIES).map((d) => ({ name: d.name, requirement: d.requirement, kind: d.kind, optional: d.optional }));
      answer.dependencies_truncated = all.length > MAX_DEPENDENCIES;
    }
    if (fields.has('vulnerabilities')) {
      const found = await this.vulnerabilities(resolved);
      answer.vulnerabilities = found.list;
      answer.vulnerabilities_note = found.note;
      answer.advisories = found.source;
    }
    if (fields.has('versions')) {
      const ordered = this.newest(resolved);
      answer.versions = ordered.slice(0, versionsLimit).map((v) => ({ version: v.version, published_at: v.publishedAt, yanked: v.yanked, deprecated: v.deprecated }));
      answer.versions_truncated = ordered.length > versionsLimit;
    }
    return answer;
  }
}

/** Declared dependencies answered at most (a manifest declaring more is truncated, and says so). */
const MAX_DEPENDENCIES = 1000;
